// /ui/states: state IDs with status, version and last change; server-side glob filter.
import { start, getJson, el, fill, td, badge, when, seg, emptyRow, showError } from './console.js';

const input = document.getElementById('pattern');
const more = document.getElementById('more');
const tbody = document.querySelector('#states tbody');
let cursor = null;

const STATUS = { ok: 'SUCCEEDED', empty: 'QUEUED', invalid: 'FAILED' };

function row(s) {
  return el('tr', { 'data-state-id': s.stateId },
    td(el('a', { href: '/ui/states/' + seg(s.stateId), class: 'mono strong' }, s.stateId)),
    td(el('span', { class: 'badge badge-' + STATUS[s.status].toLowerCase(), 'data-status': s.status }, s.status)),
    td(String(s.version), 'num'), td(when(s.updatedAt)));
}

async function load(reset) {
  if (reset) cursor = null;
  const q = input.value.trim();
  const page = await getJson('/api/v1/states?limit=100' + (q ? '&pattern=' + encodeURIComponent(q) : '')
    + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
  if (reset) tbody.replaceChildren();
  tbody.append(...page.items.map(row));
  if (!tbody.childElementCount) fill(tbody, emptyRow(4, q ? 'No state ID matches.' : 'No state yet: it appears after the first run.'));
  cursor = page.nextCursor;
  more.hidden = !cursor;
}

start(async () => {
  input.value = new URLSearchParams(location.search).get('pattern') || '';
  let timer = null;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => load(true).catch(showError), 250);
  });
  more.addEventListener('click', () => load(false).catch(showError));
  await load(true);
});
