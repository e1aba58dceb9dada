// /ui/pipelines/{name}: settings, schedule with next fire times, runs as a timeline, records per run.
import {
  start, getJson, el, fill, kv, td, badge, utc, duration, num, seg, emptyRow, runLink, when, showError
} from './console.js';
import { pipelineActions } from './actions.js';

const REFRESH_MS = 5000;
const name = document.getElementById('pipeline').dataset.name;
const STATUSES = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'RUNNING', 'QUEUED', 'SKIPPED'];
let chart = null;
let shown = null;

function settings(p) {
  kv('settings', [
    ['Extractor', el('span', { class: 'mono' }, p.extractor)],
    p.mappers && p.mappers.length ? ['Mappers', el('span', { class: 'mono' }, p.mappers.join(', '))] : null,
    ['Loader', el('span', { class: 'mono' }, p.loader)],
    p.transform ? ['Transform', el('span', { class: 'mono' }, [p.transform.plugin].concat(p.transform.args || []).join(' '))] : null,
    ['Executor', p.executor + (p.meltanoProjectDir ? ' · ' + p.meltanoProjectDir : '') + (p.meltanoJob ? ' · job ' + p.meltanoJob : '')],
    ['Environment', p.environment],
    ['State ID', [el('a', { href: '/ui/states/' + seg(p.stateId), class: 'mono' }, p.stateId),
      p.stateIdDerived ? el('span', { class: 'muted small' }, ' derived') : null]],
    ['State', p.stateStrategy + ' · commit ' + p.stateCommitPolicy],
    ['Timeout', p.timeoutSeconds ? duration(p.timeoutSeconds * 1000) : null],
    ['Retry', p.retry && p.retry.maxAttempts > 1 ? p.retry.maxAttempts + ' attempts, backoff ' + p.retry.backoffSeconds
      + ' s (max ' + p.retry.maxBackoffSeconds + ' s)' : 'none'],
    ['Environment variables', p.env && Object.keys(p.env).length
      ? el('span', { class: 'mono' }, Object.keys(p.env).join(', ')) : null],
    ['Version', String(p.version)],
    ['Updated', utc(p.updatedAt)]
  ]);
}

function schedule(p, s) {
  kv('schedule', [
    ['Interval', el('span', { class: 'mono' }, s.interval)],
    ['Time zone', s.timezone],
    ['Status', s.enabled ? el('span', { class: 'badge badge-succeeded' }, 'active') : el('span', { class: 'badge badge-paused', 'data-status': 'PAUSED' }, 'paused')],
    s.pausedReason ? ['Paused because', s.pausedReason] : null,
    ['Catch-up', s.catchUp],
    ['Pause after failures', s.pauseAfterFailures === null ? 'never' : String(s.pauseAfterFailures)],
    ['Next run', p.nextRunAt ? when(p.nextRunAt) : null]
  ]);
  const rows = (s.next || []).map(f => el('tr', null, td(f.utc, 'mono'), td(f.local, 'mono')));
  fill(document.querySelector('#next-fires tbody'), rows.length ? rows : emptyRow(2, 'No upcoming fire time (manual, @once or paused).'));
}

/** Bars by duration (height), coloured by status, oldest left; skipped ticks as marks under the axis. */
function timeline(runs) {
  const box = fill('timeline');
  const ordered = [...runs].reverse();
  if (!ordered.length) {
    box.append(el('p', { class: 'muted' }, 'No runs yet.'));
    return;
  }
  const max = Math.max(1, ...ordered.map(r => r.durationMs || 0));
  for (const r of ordered) {
    const skipped = r.status === 'SKIPPED';
    const h = skipped ? 0 : Math.max(4, Math.round(((r.durationMs || 0) / max) * 100));
    const bar = el('a', {
      href: '/ui/runs/' + seg(r.id), class: 'tl-item tl-' + r.status.toLowerCase(), 'data-status': r.status,
      title: r.status + ' · ' + (utc(r.startedAt || r.scheduledFor || r.queuedAt) || '') + (skipped ? '' : ' · ' + (duration(r.durationMs) || 'no duration'))
        + (r.errorSummary ? ' · ' + r.errorSummary : '')
    }, el('span', { class: skipped ? 'tl-tick' : 'tl-bar' }));
    if (!skipped) bar.firstChild.style.height = h + '%';
    box.append(bar);
  }
  const first = ordered[0];
  const last = ordered[ordered.length - 1];
  fill('legend', STATUSES.map(s => el('span', { class: 'legend-item' }, el('span', { class: 'swatch tl-' + s.toLowerCase() }), s.toLowerCase())),
    el('span', { class: 'muted small legend-range' }, 'tallest ' + duration(max) + ' · ' + utc(first.queuedAt) + ' → ' + utc(last.queuedAt)));
}

function recordsChart(runs) {
  const box = document.getElementById('records-chart');
  const done = [...runs].reverse().filter(r => r.status !== 'SKIPPED' && r.startedAt);
  if (chart) {
    chart.destroy();
    chart = null;
  }
  box.replaceChildren();
  if (!done.length || typeof window.uPlot !== 'function') {
    box.append(el('p', { class: 'muted' }, 'No finished run yet.'));
    return;
  }
  const xs = done.map((r, i) => i + 1);
  const ys = done.map(r => r.recordsTotal);
  const labels = done.map(r => utc(r.startedAt));
  const uPlot = window.uPlot;
  chart = new uPlot({
    width: Math.max(300, box.clientWidth),
    height: 200,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false, range: () => [0.4, xs.length + 0.6] }, y: { range: (u, lo, hi) => [0, Math.max(1, hi * 1.15)] } },
    axes: [
      { stroke: '#64748b', grid: { show: false }, splits: () => xs.filter((x, i) => i % Math.ceil(xs.length / 12) === 0 || i === xs.length - 1),
        values: (u, vals) => vals.map(v => '#' + v) },
      { stroke: '#64748b', grid: { stroke: '#eef2f7' }, size: 60, values: (u, vals) => vals.map(v => num(v)) }
    ],
    series: [
      { label: 'Run', value: (u, v) => v === null ? '' : labels[v - 1] },
      { label: 'Records', stroke: '#2563eb', fill: 'rgba(37,99,235,0.55)', width: 1, paths: uPlot.paths.bars({ size: [0.6, 48] }),
        points: { show: false } }
    ]
  }, [xs, ys], box);
}

function runsTable(runs) {
  fill(document.querySelector('#runs tbody'), runs.length ? runs.slice(0, 30).map(r => el('tr', { 'data-run': r.id },
    td(runLink(r.id)), td(badge(r.status)), td(r.trigger), td(r.startedAt ? when(r.startedAt) : null),
    td(duration(r.durationMs), 'num'), td(r.status === 'SKIPPED' ? null : num(r.recordsTotal), 'num'),
    td(r.failure ? r.failure.message : r.errorSummary, 'reason'))) : emptyRow(7, 'No runs yet.'));
}

async function load() {
  const [p, s, runs] = await Promise.all([
    getJson('/api/v1/pipelines/' + seg(name)),
    getJson('/api/v1/pipelines/' + seg(name) + '/schedule?next=5'),
    getJson('/api/v1/pipelines/' + seg(name) + '/runs?limit=100')
  ]);
  // Re-render only what changed since the last refresh (keeps the chart and hover steady).
  const signature = JSON.stringify([p.version, p.lastRun, p.nextRunAt, s, runs.items.map(r => [r.id, r.status, r.durationMs, r.recordsTotal])]);
  if (signature === shown) return;
  shown = signature;
  fill('pipeline-badges', s.enabled ? null : el('span', { class: 'badge badge-paused', 'data-status': 'PAUSED' }, 'paused'),
    p.lastRun ? [' ', badge(p.lastRun.status)] : null);
  fill('pipeline-actions', pipelineActions(p, load));
  settings(p);
  schedule(p, s);
  timeline(runs.items);
  recordsChart(runs.items);
  runsTable(runs.items);
}

start(async () => {
  await load();
  setInterval(() => load().catch(showError), REFRESH_MS);
});
