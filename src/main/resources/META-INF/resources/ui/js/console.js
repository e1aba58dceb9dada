// Tapline console: shared helpers of every page. Loaded as an ES module from /ui/js (no inline
// scripts: the Content-Security-Policy forbids them). Every value from the API is put into the page
// with textContent or as an attribute value, never as HTML.

const TOKEN_KEY = 'tapline.token';
const SIGNED_OUT_KEY = 'tapline.signedOut';
const PROXY_KEY = 'tapline.proxySession';
const body = document.body;
export const authOn = body.dataset.auth !== 'off';
const devMode = body.dataset.dev === 'true';

/** The bearer token of this tab, or null. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Stores a token for this tab (sessionStorage: gone when the tab closes, never sent as a cookie). */
export function setToken(t) {
  sessionStorage.setItem(TOKEN_KEY, t.trim());
  sessionStorage.removeItem(SIGNED_OUT_KEY);
}

function b64urlJson(part) {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - b64.length % 4) % 4));
  const bytes = Uint8Array.from(bin, c => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** The token's claims, decoded for display only (the API verifies the signature). */
export function claims() {
  if (!authOn) return { sub: 'anonymous', groups: ['admin'] };
  const t = token();
  if (!t) {
    const proxied = sessionStorage.getItem(PROXY_KEY);
    return proxied ? JSON.parse(proxied) : null;
  }
  try {
    return b64urlJson(t.split('.')[1]);
  } catch (e) {
    return null;
  }
}

function groupsOf(c) {
  if (!c) return [];
  if (Array.isArray(c.groups)) return c.groups;
  if (c.realm_access && Array.isArray(c.realm_access.roles)) return c.realm_access.roles;
  return [];
}

/** The highest role of the token: 'admin', 'operator', 'viewer' or ''. For showing buttons only. */
export function role() {
  const g = groupsOf(claims());
  return g.includes('admin') ? 'admin' : g.includes('operator') ? 'operator' : g.includes('viewer') ? 'viewer' : '';
}

/** Whether the user may trigger, cancel, pause and edit state (operator or admin). */
export const canOperate = () => role() === 'admin' || role() === 'operator';
/** Whether the user is an admin (audit trail). */
export const isAdmin = () => role() === 'admin';

/** Sends the user to the sign-in page, coming back to this page afterwards. */
export function toSignin() {
  const next = location.pathname + location.search;
  location.assign('/ui/signin?next=' + encodeURIComponent(next));
}

/** A problem+json answer (or a network failure) as an Error with status, title and detail. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || ('HTTP ' + status));
    this.status = status;
    this.problem = problem;
  }
}

/**
 * Calls the API. Returns the Response (ok) or throws ApiError. A 401 sends the user to sign in.
 * opts: {method, json (a body to send as JSON), headers, signal}.
 */
export async function call(path, opts = {}) {
  const headers = new Headers(opts.headers || {});
  const t = token();
  if (authOn && t) headers.set('Authorization', 'Bearer ' + t);
  let bodyText;
  if (opts.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    bodyText = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json);
  }
  const res = await fetch(path, { method: opts.method || 'GET', headers, body: bodyText, signal: opts.signal,
    credentials: 'omit', cache: 'no-store' });
  if (res.status === 401 && authOn) {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(PROXY_KEY);
    toSignin();
    throw new ApiError(401, { title: 'Unauthorized', detail: 'Sign in again.' });
  }
  if (!res.ok) {
    let problem = { title: res.statusText };
    try {
      problem = await res.json();
    } catch (e) { /* not JSON */ }
    throw new ApiError(res.status, problem);
  }
  return res;
}

/** GET of a JSON resource. */
export async function getJson(path) {
  return (await call(path)).json();
}

/** Path segment of a name or state ID. */
export const seg = s => encodeURIComponent(s);

// ---------------------------------------------------------------------------------------------
// DOM helpers: text only.

/**
 * Creates an element. attrs: class, href, title, id, data-*, hidden...; children: strings (as text
 * nodes), nodes, null (skipped) or arrays of those.
 */
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  append(e, children);
  return e;
}

function append(parent, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of an element (or of the element with that id). */
export function fill(target, ...children) {
  const e = typeof target === 'string' ? document.getElementById(target) : target;
  e.replaceChildren();
  append(e, children);
  return e;
}

/** A status badge: SUCCEEDED, FAILED, RUNNING... (data-status for styling and tests). */
export function badge(status, extraClass) {
  const s = String(status || 'NONE');
  return el('span', { class: 'badge badge-' + s.toLowerCase() + (extraClass ? ' ' + extraClass : ''), 'data-status': s }, s);
}

/** A definition-list body from [label, value] pairs (value: text, node, or null for "—"). */
export function kv(target, pairs) {
  fill(target, pairs.filter(p => p).map(([k, v]) => [el('dt', null, k),
    el('dd', null, v === null || v === undefined || v === '' ? el('span', { class: 'muted' }, '—') : v)]));
}

/** A table cell. */
export const td = (content, cls) => el('td', cls ? { class: cls } : null, content);

/** An empty-table row with a message. */
export const emptyRow = (cols, text) => el('tr', { class: 'placeholder' }, el('td', { colspan: cols }, text));

/** Shows an error (an ApiError's detail, or any message) in the page's alert banner. */
export function showError(e) {
  if (e && e.status === 401) return;
  const text = e instanceof ApiError ? (e.problem.title ? e.problem.title + ': ' : '') + e.message : String(e && e.message || e);
  document.getElementById('alert-text').textContent = text;
  document.getElementById('alert').hidden = false;
}

/** Hides the alert banner. */
export function clearError() {
  document.getElementById('alert').hidden = true;
}

/** Asks in a modal dialog; resolves true when confirmed. */
export function confirmAction(title, text, okLabel) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel || 'Confirm';
  return new Promise(resolve => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
    d.returnValue = '';
    d.showModal();
  });
}

// ---------------------------------------------------------------------------------------------
// Formatting.

/** ISO time as "2026-03-01 12:00:05 UTC" (the API's times are UTC). */
export function utc(iso) {
  if (!iso) return null;
  const d = new Date(iso);
  if (isNaN(d)) return String(iso);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
}

/** A <time> element: relative text ("3 min ago", "in 2 h"), the UTC time as its title. */
export function when(iso) {
  if (!iso) return null;
  return el('time', { datetime: iso, title: utc(iso) }, relative(iso));
}

/** "3 min ago" / "in 2 h". */
export function relative(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  const a = Math.abs(ms);
  const units = [[86400000, 'd'], [3600000, 'h'], [60000, 'min'], [1000, 's']];
  let text = 'now';
  for (const [n, u] of units) {
    if (a >= n) {
      text = Math.floor(a / n) + ' ' + u;
      break;
    }
  }
  if (text === 'now') return text;
  return ms < 0 ? text + ' ago' : 'in ' + text;
}

/** Milliseconds as "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min". */
export function duration(ms) {
  if (ms === null || ms === undefined) return null;
  if (ms < 1000) return ms + ' ms';
  if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
  const s = Math.round(ms / 1000);
  if (s < 3600) return Math.floor(s / 60) + ' min ' + String(s % 60).padStart(2, '0') + ' s';
  return Math.floor(s / 3600) + ' h ' + String(Math.floor(s % 3600 / 60)).padStart(2, '0') + ' min';
}

/** 1234567 as "1,234,567". */
export const num = n => (n === null || n === undefined) ? null : Number(n).toLocaleString('en-US');

/** Bytes as "12.3 MiB". */
export function bytes(n) {
  if (n === null || n === undefined) return null;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return (i === 0 ? v : v.toFixed(1)) + ' ' + units[i];
}

/** Pretty JSON text (indent 2). */
export const pretty = v => JSON.stringify(v, null, 2);

/** An object's entries as "key value" lines (values as compact JSON text), for bookmarks and audit details. */
export function fields(obj, cls) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return el('span', { class: 'mono' }, JSON.stringify(obj));
  return el('div', { class: 'fields' + (cls ? ' ' + cls : '') }, Object.entries(obj).map(([k, v]) =>
    el('div', { class: 'field' }, el('span', { class: 'field-key' }, k), el('span', { class: 'field-value mono' },
      typeof v === 'string' ? v : JSON.stringify(v)))));
}

/** The active statuses of a run. */
export const isActive = s => s === 'QUEUED' || s === 'RUNNING';

/** A link to a run page showing the short id. */
export const runLink = id => el('a', { href: '/ui/runs/' + seg(id), class: 'mono', title: id }, String(id).slice(0, 8) + '…' + String(id).slice(-4));

// ---------------------------------------------------------------------------------------------
// JSON diff of states.

/** Flattens JSON to [path, JSON text of a leaf] pairs; empty objects and arrays are leaves. */
export function flatten(v, prefix = '', out = new Map()) {
  if (v !== null && typeof v === 'object' && Object.keys(v).length > 0) {
    for (const [k, c] of Object.entries(v)) {
      flatten(c, prefix === '' ? k : prefix + (Array.isArray(v) ? '[' + k + ']' : '.' + k), out);
    }
  } else if (prefix !== '') {
    out.set(prefix, JSON.stringify(v));
  }
  return out;
}

/**
 * A diff table of two JSON values: one row per added, removed or changed leaf. flat flattens a value
 * (flatten here; json.js has one for values read without JavaScript numbers).
 */
export function diffTable(from, to, fromLabel, toLabel, flat = flatten) {
  const a = flat(from || {});
  const b = flat(to || {});
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  const rows = [];
  for (const p of paths) {
    const x = a.get(p);
    const y = b.get(p);
    if (x === y) continue;
    const kind = x === undefined ? 'added' : y === undefined ? 'removed' : 'changed';
    rows.push(el('tr', { class: 'diff-' + kind, 'data-path': p },
      td(el('span', { class: 'diff-kind' }, kind)), td(p, 'mono'),
      td(x === undefined ? null : x, 'mono diff-old'), td(y === undefined ? null : y, 'mono diff-new')));
  }
  if (rows.length === 0) return el('p', { class: 'muted diff-none' }, 'No difference.');
  return el('table', { class: 'table table-compact diff' },
    el('thead', null, el('tr', null, el('th', null, ''), el('th', null, 'Path'), el('th', null, fromLabel), el('th', null, toLabel))),
    el('tbody', null, rows));
}

/** Meltano's merge of partial state over completed state, for display. */
export function mergeState(split) {
  if (!split) return {};
  const merge = (a, b) => {
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const out = { ...a };
      for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
      return out;
    }
    return b === undefined ? a : b;
  };
  return merge(split.completed || {}, split.partial || {});
}

// ---------------------------------------------------------------------------------------------
// Sparkline (inline SVG, drawn with DOM calls).

const SVG = 'http://www.w3.org/2000/svg';

/** A small SVG line of values (durations), newest right; points coloured by status. */
export function sparkline(points, w = 120, h = 28) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('width', w);
  svg.setAttribute('height', h);
  svg.setAttribute('class', 'sparkline');
  if (points.length === 0) return el('span', { class: 'muted small' }, 'no runs');
  const max = Math.max(...points.map(p => p.value), 1);
  const step = points.length > 1 ? (w - 6) / (points.length - 1) : 0;
  const x0 = points.length > 1 ? 3 : w - 3;
  const xy = points.map((p, i) => [x0 + i * step, h - 3 - (p.value / max) * (h - 6)]);
  const base = document.createElementNS(SVG, 'line');
  base.setAttribute('x1', '0');
  base.setAttribute('x2', String(w));
  base.setAttribute('y1', String(h - 1));
  base.setAttribute('y2', String(h - 1));
  base.setAttribute('class', 'spark-base');
  svg.append(base);
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', xy.map(([x, y]) => x.toFixed(1) + ',' + y.toFixed(1)).join(' '));
  line.setAttribute('class', 'spark-line');
  svg.append(line);
  points.forEach((p, i) => {
    const c = document.createElementNS(SVG, 'circle');
    c.setAttribute('cx', xy[i][0].toFixed(1));
    c.setAttribute('cy', xy[i][1].toFixed(1));
    c.setAttribute('r', '2');
    c.setAttribute('class', 'spark-dot spark-' + p.status.toLowerCase());
    const t = document.createElementNS(SVG, 'title');
    t.textContent = p.status + ' · ' + duration(p.value);
    c.append(t);
    svg.append(c);
  });
  return svg;
}

// ---------------------------------------------------------------------------------------------
// Page start.

async function devSignin() {
  if (!devMode || sessionStorage.getItem(SIGNED_OUT_KEY)) return false;
  try {
    const res = await fetch('/ui/dev-token', { credentials: 'omit', cache: 'no-store' });
    if (!res.ok) return false;
    setToken(await res.text());
    return true;
  } catch (e) {
    return false;
  }
}

function header() {
  const page = body.dataset.page;
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === page || (a.dataset.nav + 's') === page) a.classList.add('active');
    if (a.dataset.nav === 'pipelines' && (page === 'pipeline' || page === 'run')) a.classList.add('active');
    if (a.dataset.nav === 'states' && page === 'state') a.classList.add('active');
  }
  for (const a of document.querySelectorAll('[data-role="admin"]')) a.hidden = !isAdmin();
  const c = claims();
  if (c) {
    document.getElementById('who').hidden = false;
    document.getElementById('who-name').textContent = c.upn || c.preferred_username || c.sub || '';
    document.getElementById('who-role').textContent = role() || 'no role';
  }
  document.getElementById('signout').hidden = !authOn;
  document.getElementById('signout').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(PROXY_KEY);
    sessionStorage.setItem(SIGNED_OUT_KEY, '1');
    location.assign('/ui/signin');
  });
  document.getElementById('alert-close').addEventListener('click', clearError);
}

/**
 * Without a token of its own, asks whether the requests are authenticated anyway (an OIDC proxy in
 * front of the service adds the Authorization header); remembers who the caller is, for display.
 */
async function proxySignin() {
  if (sessionStorage.getItem(SIGNED_OUT_KEY)) return false;
  try {
    const res = await fetch('/ui/session', { credentials: 'omit', cache: 'no-store' });
    if (!res.ok) return false;
    const s = await res.json();
    sessionStorage.setItem(PROXY_KEY, JSON.stringify({ sub: s.name, groups: s.roles }));
    return true;
  } catch (e) {
    return false;
  }
}

/**
 * Starts a page: makes sure there is a token (dev mode fetches the dev token; otherwise the sign-in
 * page), fills the header, then runs the page's main function, showing its errors.
 */
export async function start(main) {
  if (authOn && !token() && !(await devSignin()) && !(sessionStorage.getItem(PROXY_KEY) || await proxySignin())) {
    toSignin();
    return;
  }
  header();
  try {
    await main();
  } catch (e) {
    showError(e);
  }
}

/** Sign-in page start: no token needed. */
export async function startSignin(main) {
  document.getElementById('alert-close').addEventListener('click', clearError);
  await main(devSignin);
}
