// /ui/pipelines: every pipeline with its schedule, last run and recent durations.
import { start, getJson, el, fill, td, badge, when, num, seg, sparkline, showError, emptyRow, runLink, duration } from './console.js';
import { pipelineActions } from './actions.js';

const REFRESH_MS = 15000;
/** Run histories (sparklines) are read for at most this many pipelines of the filtered list. */
const MAX_HISTORIES = 200;
const filter = document.getElementById('filter');
let pipelines = [];
const recent = new Map();

async function allPipelines() {
  const out = [];
  let cursor = null;
  for (let i = 0; i < 20; i++) {
    const page = await getJson('/api/v1/pipelines?limit=500' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    out.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return out;
}

/** Runs the tasks with at most n at a time. */
async function pool(items, n, task) {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(n, queue.length) }, async () => {
    while (queue.length) await task(queue.shift());
  }));
}

async function loadHistory(p) {
  try {
    const page = await getJson('/api/v1/pipelines/' + seg(p.name) + '/runs?limit=20');
    recent.set(p.name, page.items);
  } catch (e) {
    recent.set(p.name, []);
  }
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
  const finished = runs.filter(r => r.status !== 'SKIPPED' && r.durationMs !== null && r.durationMs !== undefined);
  const last = runs.find(r => r.status !== 'SKIPPED');
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
  const q = filter.value.trim().toLowerCase();
  await pool(pipelines.filter(p => p.name.toLowerCase().includes(q)).slice(0, MAX_HISTORIES), 4, loadHistory);
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
