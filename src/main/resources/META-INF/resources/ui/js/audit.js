// /ui/audit (admins): the audit trail, newest first, with filters and paging.
import { start, getJson, el, fill, td, utc, emptyRow, showError, isAdmin, runLink, seg, fields } from './console.js';

const more = document.getElementById('more');
const tbody = document.querySelector('#audit tbody');
let cursor = null;

function target(e) {
  if (e.targetType === 'run') return runLink(e.target);
  if (e.targetType === 'state') return el('a', { href: '/ui/states/' + seg(e.target), class: 'mono' }, e.target);
  if (e.targetType === 'pipeline') return el('a', { href: '/ui/pipelines/' + seg(e.target) }, e.target);
  return el('span', { class: 'mono' }, e.target);
}

function row(e) {
  return el('tr', { 'data-action': e.action },
    td(utc(e.at), 'nowrap'), td(e.actor), td(el('span', { class: 'tag' }, e.action)), td(target(e)),
    td(e.details ? fields(e.details) : null, 'details'),
    td(e.requestId ? el('span', { title: e.requestId }, e.requestId.slice(0, 8)) : null, 'mono muted small'));
}

function query() {
  const p = new URLSearchParams();
  for (const [k, idv] of [['actor', 'f-actor'], ['action', 'f-action'], ['target', 'f-target']]) {
    const v = document.getElementById(idv).value.trim();
    if (v) p.set(k, v);
  }
  p.set('limit', '100');
  if (cursor) p.set('cursor', cursor);
  return p.toString();
}

async function load(reset) {
  if (reset) cursor = null;
  const page = await getJson('/api/v1/audit?' + query());
  if (reset) tbody.replaceChildren();
  tbody.append(...page.items.map(row));
  if (!tbody.childElementCount) fill(tbody, emptyRow(6, 'No audit event matches.'));
  cursor = page.nextCursor;
  more.hidden = !cursor;
}

start(async () => {
  if (!isAdmin()) {
    fill(tbody, emptyRow(6, 'The audit trail is for admins.'));
    return;
  }
  document.getElementById('audit-filter').addEventListener('submit', ev => {
    ev.preventDefault();
    load(true).catch(showError);
  });
  more.addEventListener('click', () => load(false).catch(showError));
  await load(true);
});
