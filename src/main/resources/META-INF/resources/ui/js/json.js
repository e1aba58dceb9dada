// JSON as the state API stores it (Python's json rules, meltano-state.md), read and written without
// going through JavaScript numbers: a bookmark such as an LSN, a snowflake ID or a nanosecond time
// (12345678901234567890) keeps every digit, and NaN, Infinity and -Infinity are read. Objects are
// Maps (key order as in the text; a repeated key keeps its first place and its last value, as in
// Python), numbers are Num holding their text, arrays, strings, booleans and null are themselves.

/** A JSON number kept as its text. */
export class Num {
  constructor(text) {
    this.text = text;
  }

  toString() {
    return this.text;
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const NAMED = [['NaN', () => new Num('NaN')], ['Infinity', () => new Num('Infinity')],
  ['-Infinity', () => new Num('-Infinity')], ['true', () => true], ['false', () => false], ['null', () => null]];

/** Parses JSON text (Python's syntax: NaN, Infinity, -Infinity allowed); throws SyntaxError with the position. */
export function parse(text) {
  let i = 0;
  const fail = what => {
    throw new SyntaxError(what + ' at character ' + (i + 1));
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = () => {
    let out = '';
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail('Unterminated string');
      const c = text[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        const e = text[i + 1];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
        if (simple !== undefined) {
          out += simple;
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          fail('Invalid \\escape');
        }
      } else if (c < ' ') {
        fail('Invalid control character');
      } else {
        out += c;
        i++;
      }
    }
  };
  const value = depth => {
    if (depth > 1000) fail('Too deeply nested');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const object = new Map();
      ws();
      if (text[i] === '}') {
        i++;
        return object;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
        const key = string();
        ws();
        if (text[i] !== ':') fail("Expecting ':' delimiter");
        i++;
        object.set(key, value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
        } else if (text[i] === '}') {
          i++;
          return object;
        } else {
          fail("Expecting ',' delimiter");
        }
      }
    }
    if (c === '[') {
      i++;
      const array = [];
      ws();
      if (text[i] === ']') {
        i++;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
        } else if (text[i] === ']') {
          i++;
          return array;
        } else {
          fail("Expecting ',' delimiter");
        }
      }
    }
    if (c === '"') return string();
    for (const [word, make] of NAMED) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return make();
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return new Num(m[0]);
    }
    return fail('Expecting value');
  };
  const v = value(0);
  ws();
  if (i < text.length) fail('Extra data');
  return v;
}

/** A string as JSON text (non-ASCII kept as it is). */
const quote = s => JSON.stringify(s);

/** JSON text of a value read by parse(): numbers as their own text; indent > 0 pretty-prints. */
export function stringify(v, indent = 0, depth = 0) {
  const pad = n => (indent > 0 ? '\n' + ' '.repeat(indent * n) : '');
  const colon = indent > 0 ? ': ' : ':';
  if (v instanceof Num) return v.text;
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    return '{' + [...v].map(([k, x]) => pad(depth + 1) + quote(k) + colon + stringify(x, indent, depth + 1)).join(',')
      + pad(depth) + '}';
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + v.map(x => pad(depth + 1) + stringify(x, indent, depth + 1)).join(',') + pad(depth) + ']';
  }
  if (v === undefined) return 'null';
  return typeof v === 'string' ? quote(v) : String(v);
}

/** The member of an object (a Map), or undefined. */
export const member = (v, key) => (v instanceof Map ? v.get(key) : undefined);

/** Meltano's merge of partial over completed ({completed, partial} as read by parse()), for display. */
export function mergeState(split) {
  const merge = (a, b) => {
    if (a instanceof Map && b instanceof Map) {
      const out = new Map(a);
      for (const [k, x] of b) out.set(k, out.has(k) ? merge(out.get(k), x) : x);
      return out;
    }
    return b === undefined ? a : b;
  };
  if (!(split instanceof Map)) return new Map();
  return merge(member(split, 'completed') || new Map(), member(split, 'partial') || new Map());
}

/** Flattens to [path, JSON text of a leaf] pairs; empty objects and arrays are leaves. */
export function flatten(v, prefix = '', out = new Map()) {
  const children = v instanceof Map ? [...v] : Array.isArray(v) ? v.map((x, k) => [String(k), x]) : [];
  if (children.length > 0) {
    for (const [k, c] of children) flatten(c, prefix === '' ? k : prefix + (Array.isArray(v) ? '[' + k + ']' : '.' + k), out);
  } else if (prefix !== '') {
    out.set(prefix, stringify(v));
  }
  return out;
}
