// /ui/states/{stateId}: current state, bookmarks per stream (edit), history with a diff between any
// two versions, rollback. Edits send If-Match with the version read; the API refuses them while a
// run of the state ID is active (shown as the problem's detail). State, bookmarks and history are
// read and edited as the exact text the API stores (json.js), never through JavaScript numbers: a
// 20-digit bookmark keeps its digits and a state holding NaN renders.
import {
  start, call, el, fill, td, utc, seg, diffTable, canOperate, showError, clearError, emptyRow, runLink,
  confirmAction
} from './console.js';
import { parse, stringify, member, mergeState, flatten } from './json.js';

const stateId = document.getElementById('state').dataset.stateId;
const base = '/api/v1/states/' + seg(stateId);
const editor = document.getElementById('bookmark-editor');
const fromSel = document.getElementById('diff-from');
const toSel = document.getElementById('diff-to');
let etag = null;
let versions = [];
let editing = null;

async function current() {
  const res = await call(base);
  etag = res.headers.get('ETag');
  const state = parse(await res.text());
  fill('current', stringify(state, 2));
  const v = etag ? etag.replace(/^W\//, '').replace(/"/g, '') : '?';
  fill('state-badges', el('span', { class: 'tag', id: 'state-version' }, 'version ' + v));
  const bookmarks = member(member(state, 'singer_state'), 'bookmarks');
  const rows = bookmarks instanceof Map ? [...bookmarks].map(([stream, b]) => el('tr', { 'data-stream': stream },
    td(stream, 'mono strong'), td(fields(b), 'bookmark-value'),
    td(canOperate() ? el('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-action': 'edit-bookmark',
      onclick: () => edit(stream, b) }, 'Edit') : null, 'actions-col'))) : [];
  fill(document.querySelector('#bookmarks tbody'), rows.length ? rows : emptyRow(3, 'No bookmarks.'));
}

/** A bookmark's keys as "key value" lines, values as their exact JSON text (strings bare). */
function fields(b) {
  if (!(b instanceof Map)) return el('span', { class: 'mono' }, stringify(b));
  return el('div', { class: 'fields' }, [...b].map(([k, v]) => el('div', { class: 'field' },
    el('span', { class: 'field-key' }, k), el('span', { class: 'field-value mono' },
      typeof v === 'string' ? v : stringify(v)))));
}

function edit(stream, b) {
  editing = stream;
  document.getElementById('bookmark-stream').textContent = stream;
  document.getElementById('bookmark-json').value = stringify(b, 2);
  document.getElementById('bookmark-error').hidden = true;
  editor.hidden = false;
  document.getElementById('bookmark-json').focus();
}

async function save(ev) {
  ev.preventDefault();
  const err = document.getElementById('bookmark-error');
  err.hidden = true;
  const text = document.getElementById('bookmark-json').value;
  try {
    parse(text); // checked here for a clear message; the text itself is sent, digit for digit
  } catch (e) {
    err.textContent = 'Not valid JSON: ' + e.message;
    err.hidden = false;
    return;
  }
  try {
    await call(base + '/bookmarks/' + seg(editing), { method: 'PUT', json: text, headers: etag ? { 'If-Match': etag } : {} });
    editor.hidden = true;
    await reload();
  } catch (e) {
    err.textContent = e.message;
    err.hidden = false;
  }
}

/** The merged state after version v; v = 0 is the state before the oldest version listed. */
function versionState(v) {
  if (v === 0) return versions.length ? mergeState(versions[versions.length - 1].before) : new Map();
  const h = versions.find(x => x.version === v);
  return h ? mergeState(h.after) : new Map();
}

function diff() {
  const a = Number(fromSel.value);
  const b = Number(toSel.value);
  fill('diff', versions.length < 1 ? el('p', { class: 'muted' }, 'No history yet.')
    : diffTable(versionState(a), versionState(b), a === 0 ? 'Before' : 'Version ' + a, 'Version ' + b, flatten));
}

function options(sel, selected, withBefore) {
  const oldest = versions.length ? versions[versions.length - 1].version : 1;
  fill(sel, versions.map(h => el('option', { value: h.version, selected: h.version === selected }, 'v' + h.version + ' · '
    + h.source + ' · ' + utc(h.createdAt))),
  withBefore ? el('option', { value: 0, selected: selected === 0 }, 'before v' + oldest) : null);
}

async function rollback(h) {
  if (!await confirmAction('Roll back to version ' + h.version + '?', 'The state of ' + stateId + ' becomes what it was after version '
    + h.version + ' (a new version; history is kept).', 'Roll back')) return;
  clearError();
  try {
    await call(base + ':rollback', { method: 'POST', json: { version: h.version }, headers: etag ? { 'If-Match': etag } : {} });
    await reload();
  } catch (e) {
    showError(e);
  }
}

async function history() {
  const page = parse(await (await call(base + '/history?limit=200')).text());
  const text = x => (x === null || x === undefined ? x : String(x));
  versions = (member(page, 'items') || []).map(h => ({
    version: Number(String(member(h, 'version'))), source: member(h, 'source'), action: member(h, 'action'),
    actor: member(h, 'actor'), runId: text(member(h, 'runId')), createdAt: member(h, 'createdAt'),
    before: member(h, 'before'), after: member(h, 'after')
  }));
  const newest = versions.length ? versions[0].version : null;
  const rows = versions.map(h => el('tr', { 'data-version': h.version, 'data-source': h.source },
    td('v' + h.version, 'num strong'), td(utc(h.createdAt), 'nowrap'), td(el('span', { class: 'tag tag-' + h.source.toLowerCase() }, h.source)),
    td(h.action), td(h.actor), td(h.runId ? runLink(h.runId) : null),
    td(canOperate() && h.version !== newest && h.after ? el('button', { type: 'button', class: 'btn btn-ghost btn-small',
      'data-action': 'rollback', onclick: () => rollback(h) }, 'Roll back here') : null, 'actions-col')));
  fill(document.querySelector('#history tbody'), rows.length ? rows : emptyRow(7, 'No history.'));
  options(toSel, newest, false);
  options(fromSel, versions.length > 1 ? versions[1].version : 0, true);
  diff();
}

async function reload() {
  await current();
  await history();
}

start(async () => {
  editor.addEventListener('submit', save);
  document.getElementById('bookmark-cancel').addEventListener('click', () => { editor.hidden = true; });
  fromSel.addEventListener('change', diff);
  toSel.addEventListener('change', diff);
  try {
    await reload();
  } catch (e) {
    if (e.status === 404) fill('current', 'No state is stored under this ID.');
    throw e;
  }
});
