// /ui/pipelines: every pipeline with its schedule, last run and recent durations.
import { start, getJson, el, fill, td, badge, when, num, seg, sparkline, showError, emptyRow, runLink, duration } from './console.js';
import { pipelineActions } from './actions.js';

const REFRESH_MS = 15000;
/** Pipelines read per request of GET /api/v1/pipelines:summary (each with its recent runs). */
const PAGE = 500;
const filter = document.getElementById('filter');
let pipelines = [];
const recent = new Map();

/** Every pipeline with its recent runs: one request per page of 500, not one per pipeline. */
async function allPipelines() {
  const out = [];
  recent.clear();
  let cursor = null;
  for (let i = 0; i < 20; i++) {
    const page = await getJson('/api/v1/pipelines:summary?limit=' + PAGE + '&recent=20'
      + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    for (const s of page.items) {
      out.push(s.pipeline);
      recent.set(s.pipeline.name, s.recentRuns);
    }
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return out;
}

function scheduleCell(p) {
  const s = p.schedule || {};
  const paused = s.enabled === false;
  return [el('span', { class: 'mono' }, s.interval || '@manual'), ' ',
    el('span', { class: 'muted small' }, s.timezone || 'UTC'),
    paused ? [' ', el('span', { class: 'badge badge-paused', 'data-status': 'PAUSED' }, 'paused')] : null];
}

function row(p) {
  const runs = recent.get(p.name) || [];
  const finished = runs.filter(r => r.durationMs !== null && r.durationMs !== undefined);
  const last = runs[0];
  const points = finished.slice(0, 20).reverse().map(r => ({ value: r.durationMs, status: r.status }));
  return el('tr', { 'data-pipeline': p.name },
    td([el('a', { href: '/ui/pipelines/' + seg(p.name), class: 'strong' }, p.name),
      el('div', { class: 'muted small mono' }, [p.extractor].concat(p.mappers || [], [p.loader]).join(' → '))]),
    td(scheduleCell(p)),
    td(p.nextRunAt ? when(p.nextRunAt) : el('span', { class: 'muted' }, '—')),
    td(p.lastRun ? [badge(p.lastRun.status), ' ', runLink(p.lastRun.id), ' ',
      p.lastRun.endedAt ? el('span', { class: 'muted small' }, when(p.lastRun.endedAt)) : null]
      : el('span', { class: 'muted' }, 'never run')),
    td(last ? num(last.recordsTotal) : '—', 'num records'),
    td(el('div', { class: 'spark-cell' }, sparkline(points), finished.length ? el('span', { class: 'muted small spark-label', title: 'last run' }, duration(finished[0].durationMs)) : null)),
    td(pipelineActions(p, load), 'actions-col'));
}

function render() {
  const q = filter.value.trim().toLowerCase();
  const shown = pipelines.filter(p => p.name.toLowerCase().includes(q));
  fill('pipelines-body', shown.length ? shown.map(row)
    : emptyRow(7, pipelines.length ? 'No pipeline matches the filter.' : 'No pipelines yet: create one with POST /api/v1/pipelines.'));
}

async function load() {
  pipelines = await allPipelines();
  render();
  document.getElementById('refreshed').textContent = 'Updated ' + new Date().toLocaleTimeString();
}

start(async () => {
  filter.value = new URLSearchParams(location.search).get('q') || '';
  filter.addEventListener('input', () => {
    const u = new URL(location.href);
    if (filter.value) u.searchParams.set('q', filter.value); else u.searchParams.delete('q');
    window.history.replaceState(null, '', u);
    render();
  });
  await load();
  setInterval(() => load().catch(showError), REFRESH_MS);
});
