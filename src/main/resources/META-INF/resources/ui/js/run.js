// /ui/runs/{id}: status, counts (live while running), failure, state diff, and the log with live follow.
import {
  start, getJson, call, el, fill, kv, td, badge, utc, duration, num, bytes, seg, diffTable, isActive,
  canOperate, showError, clearError, emptyRow, runLink, confirmAction, ApiError
} from './console.js';
import { parse, stringify, member, flatten } from './json.js';

const POLL_MS = 1000;
const id = document.getElementById('run').dataset.id;
const logEl = document.getElementById('log');
const logStatus = document.getElementById('log-status');
const autoscroll = document.getElementById('log-autoscroll');
// ANSI colour and cursor sequences (ESC [ ... letter), removed from log lines.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
let run = null;
let following = false;

function failure(r) {
  const box = document.getElementById('failure');
  const f = r.failure;
  if (!f && !r.errorSummary) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.className = 'failure failure-' + r.status.toLowerCase();
  if (f) {
    fill(box, el('div', { class: 'failure-title' }, r.status === 'CANCELLED' ? 'Cancelled' : 'Failed',
      f.component ? ' in the ' + f.component : '', f.type ? ' · ' + f.type : '',
      f.retryable === true ? ' · retryable' : f.retryable === false ? ' · not retryable' : ''),
    el('div', { class: 'failure-message', id: 'failure-message' }, f.message || r.errorSummary || ''));
  } else {
    fill(box, el('div', { class: 'failure-title' }, r.status === 'CANCELLED' ? 'Cancelled' : r.status === 'FAILED' ? 'Failed' : 'Note',
      r.failedComponent ? ' in the ' + r.failedComponent : ''),
    el('div', { class: 'failure-message', id: 'failure-message' }, r.errorSummary));
  }
}

function actions(r) {
  const box = fill('run-actions');
  if (!canOperate()) return;
  if (isActive(r.status) && !r.cancelRequestedAt) {
    const b = el('button', { type: 'button', class: 'btn btn-danger', 'data-action': 'cancel' }, 'Cancel run');
    b.addEventListener('click', async () => {
      if (!await confirmAction('Cancel this run?', 'Each process gets SIGTERM, then SIGKILL after the grace period.', 'Cancel run')) return;
      b.disabled = true;
      clearError();
      try {
        await call('/api/v1/runs/' + seg(id) + '/cancel', { method: 'POST' });
        await refresh();
      } catch (e) {
        showError(e);
        b.disabled = false;
      }
    });
    box.append(b);
  }
  const again = el('button', { type: 'button', class: 'btn btn-ghost', 'data-action': 'trigger' }, 'Run pipeline again');
  again.addEventListener('click', async () => {
    clearError();
    try {
      const next = await (await call('/api/v1/pipelines/' + seg(r.pipeline) + '/runs', { method: 'POST', json: {} })).json();
      location.assign('/ui/runs/' + seg(next.id));
    } catch (e) {
      showError(e);
    }
  });
  if (!isActive(r.status)) box.append(again);
}

function render(r) {
  document.title = 'Run ' + r.id.slice(0, 8) + ' · ' + r.pipeline + ' · Tapline';
  const p = document.getElementById('run-pipeline');
  p.textContent = r.pipeline;
  p.href = '/ui/pipelines/' + seg(r.pipeline);
  fill('run-status', badge(r.status, 'badge-large'));
  failure(r);
  actions(r);
  kv('summary', [
    ['Pipeline', el('a', { href: '/ui/pipelines/' + seg(r.pipeline) }, r.pipeline)],
    ['State ID', el('a', { href: '/ui/states/' + seg(r.stateId), class: 'mono' }, r.stateId)],
    ['Trigger', [r.trigger, r.scheduledFor ? el('span', { class: 'muted' }, ' for ' + utc(r.scheduledFor)) : null,
      r.createdBy ? el('span', { id: 'triggered-by' }, ' by ' + r.createdBy) : null]],
    ['Attempt', [String(r.attempt), r.retryOf ? [' · retry of ', runLink(r.retryOf)] : null]],
    ['Queued', utc(r.queuedAt)],
    ['Started', utc(r.startedAt)],
    ['Ended', utc(r.endedAt)],
    ['Duration', el('span', { id: 'run-duration' }, duration(r.durationMs) || '—')],
    ['State strategy', r.stateStrategy + ' · commit ' + r.stateCommitPolicy + (r.fullRefresh ? ' · full refresh' : '')],
    ['Replica', r.ownerInstance ? el('span', { class: 'mono' }, r.ownerInstance) : null],
    r.cancelRequestedAt ? ['Cancel requested', utc(r.cancelRequestedAt)] : null,
    r.warnings && r.warnings.length ? ['Warnings', el('ul', { class: 'plain' }, r.warnings.map(w => el('li', null, w)))] : null
  ]);
  kv('counts', [
    ['Records', el('span', { id: 'records-total', class: 'strong' }, num(r.recordsTotal))],
    ['Bytes from the tap', bytes(r.bytesTotal)],
    ['STATE messages (tap)', num(r.stateMessages)],
    ['State lines (target)', num(r.stateLines)],
    ['Invalid state lines', num(r.invalidStateLines)]
  ]);
  const codes = Object.entries(r.exitCodes || {});
  kv('exit-codes', codes.length ? codes.map(([k, v]) => [k, el('span', { class: v === 0 ? 'ok' : 'bad' }, String(v))])
    : [['—', isActive(r.status) ? 'running' : 'none']]);
  const streams = Object.entries(r.streams || {});
  fill(document.querySelector('#streams tbody'), streams.length ? streams.map(([name, s]) => el('tr', { 'data-stream': name },
    td(name, 'mono'), td(num(s.records), 'num'), td(num(s.schemas), 'num'), td(num(s.batches), 'num'), td(bytes(s.bytes), 'num')))
    : emptyRow(5, 'No stream yet.'));
  const stages = Array.isArray(r.stages) ? r.stages : [];
  fill(document.querySelector('#stages tbody'), stages.length ? stages.map(s => el('tr', null,
    td(s.name), td(badge(s.status)), td(utc(s.startedAt)),
    td(s.startedAt && s.endedAt ? duration(new Date(s.endedAt) - new Date(s.startedAt)) : null, 'num')))
    : emptyRow(4, isActive(r.status) ? 'Running…' : 'No stage recorded.'));
  fill('state-diff', diffTable(r.stateBefore, r.stateAfter, 'Before', 'After', flatten));
  fill('state-before', r.stateBefore ? stringify(r.stateBefore, 2) : '{}');
  fill('state-after', r.stateAfter ? stringify(r.stateAfter, 2) : '{}');
}

async function refresh() {
  const text = await (await call('/api/v1/runs/' + seg(id))).text();
  run = JSON.parse(text);
  // the states as their exact text (json.js): bookmarks beyond 2^53 keep their digits
  const exact = parse(text);
  run.stateBefore = member(exact, 'stateBefore') ?? null;
  run.stateAfter = member(exact, 'stateAfter') ?? null;
  render(run);
  return run;
}

function appendLines(text) {
  const atBottom = logEl.scrollHeight - logEl.scrollTop - logEl.clientHeight < 40;
  const frag = document.createDocumentFragment();
  for (const line of text.split('\n')) {
    const clean = line.replace(ANSI, '').replace(/\r$/, '');
    const div = document.createElement('div');
    div.className = 'log-line' + (/\b(error|exception|traceback|fatal)\b/i.test(clean) ? ' log-error' : /\bwarn(ing)?\b/i.test(clean) ? ' log-warn' : '');
    div.textContent = clean;
    frag.append(div);
  }
  logEl.append(frag);
  if (autoscroll.checked && (atBottom || following)) logEl.scrollTop = logEl.scrollHeight;
}

function setLogStatus(text, live) {
  logStatus.textContent = text;
  logStatus.className = 'log-status' + (live ? ' live' : '');
  logStatus.dataset.state = live ? 'following' : 'ended';
}

/** Reads the log; while the run is active, with follow=true, line by line as the response streams. */
async function readLog(follow) {
  following = follow;
  setLogStatus(follow ? 'following live' : 'loading', follow);
  const res = await call('/api/v1/runs/' + seg(id) + '/log' + (follow ? '?follow=true' : ''), { headers: { Accept: 'text/plain' } });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  logEl.replaceChildren();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += decoder.decode(value, { stream: true });
    const cut = rest.lastIndexOf('\n');
    if (cut >= 0) {
      appendLines(rest.slice(0, cut));
      rest = rest.slice(cut + 1);
    }
  }
  rest += decoder.decode();
  if (rest) appendLines(rest);
  following = false;
  if (!logEl.childElementCount) logEl.append(el('div', { class: 'log-line muted' }, '(empty log)'));
  setLogStatus('complete', false);
}

async function poll() {
  try {
    const r = await refresh();
    if (isActive(r.status)) setTimeout(poll, POLL_MS);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) showError(e);
  }
}

start(async () => {
  const r = await refresh();
  if (isActive(r.status)) setTimeout(poll, POLL_MS);
  try {
    // The follow stream ends when the run has ended and every line was sent. A queued run has no
    // log yet, so its stream ends at once: follow again until the run is over.
    for (;;) {
      const status = run.status;
      await readLog(isActive(status));
      if (!isActive(status)) break;
      const now = await refresh();
      if (!isActive(now.status)) {
        if (status === 'QUEUED') await readLog(false);
        break;
      }
      setLogStatus('waiting for the run to start', true);
      await new Promise(done => setTimeout(done, POLL_MS));
    }
  } catch (e) {
    setLogStatus('log unavailable', false);
    showError(e);
  }
});
