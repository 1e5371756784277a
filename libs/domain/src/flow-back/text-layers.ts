// A text as it reads once its escapes are undone, with where each decoded character came from: a value written
// JSON-escaped (`\u0034`), URL-encoded (`%34`) or as an HTML character reference (`&#52;`), or any mix of them, is
// found in the decoded layer and replaced in the original text.

/** One reading of a text: its characters, and for each the span of the original text it was decoded from. */
export interface TextLayer {
  text: string;
  /** `start[i]` and `end[i]`: the original characters decoded into `text[i]`; null for the original text itself. */
  start: Int32Array | null;
  end: Int32Array | null;
}

/** Decoding passes after the original: an escape of an escape (`%5Cu0034`) takes two. */
export const MAX_DECODED_LAYERS = 3;

type EscapeKind = 'backslash' | 'percent' | 'reference';
const ALL_KINDS: ReadonlySet<EscapeKind> = new Set(['backslash', 'percent', 'reference']);

/**
 * The original text; each decoding of it that changed something, every kind of escape at once, each one pass further;
 * and each kind alone, once: noise written before a value (`\` before `r%40…`) would otherwise make the decoding of
 * one kind eat a character of another's.
 */
export const textLayers = (text: string): TextLayer[] => {
  const original: TextLayer = { text, start: null, end: null };
  const layers: TextLayer[] = [original];
  for (let pass = 0, last = original; pass < MAX_DECODED_LAYERS; pass++) {
    const next = decodeOnce(last, ALL_KINDS);
    if (next === null) break;
    layers.push(next);
    last = next;
  }
  if (layers.length > 1) {
    for (const kind of ALL_KINDS) {
      const alone = decodeOnce(original, new Set([kind]));
      if (alone !== null && alone.text !== layers[1].text) layers.push(alone);
    }
  }
  return layers;
};

/** Where in the original text the characters `from` to `to` (exclusive) of a layer came from. */
export const originalSpan = (layer: TextLayer, from: number, to: number): [number, number] =>
  layer.start === null || layer.end === null ? [from, to] : [layer.start[from], layer.end[to - 1]];

const HEX = /^[0-9A-Fa-f]+$/;

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', "'": "'", b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

const NAMED_REFERENCES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0' };

/** One pass: every escape the layer holds decoded once, or null when it holds none. */
const decodeOnce = (layer: TextLayer, kinds: ReadonlySet<EscapeKind>): TextLayer | null => {
  const source = layer.text;
  if (!/[\\%&]/.test(source)) return null;
  const chars: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let changed = false;
  const emit = (char: string, from: number, to: number) => {
    // A code point of two UTF-16 units: both units come from the same span.
    for (let k = 0; k < char.length; k++) {
      chars.push(char[k]);
      starts.push(layer.start === null ? from : layer.start[from]);
      ends.push(layer.end === null ? to : layer.end[to - 1]);
    }
  };
  for (let i = 0; i < source.length; ) {
    const decoded = escapeAt(source, i, kinds);
    if (decoded === null) {
      emit(source[i], i, i + 1);
      i++;
    } else {
      emit(decoded.char, i, i + decoded.length);
      i += decoded.length;
      changed = true;
    }
  }
  if (!changed) return null;
  return { text: chars.join(''), start: Int32Array.from(starts), end: Int32Array.from(ends) };
};

/** The escape that starts at `i`, decoded, and how many characters it spans; null when none does. */
const escapeAt = (text: string, i: number, kinds: ReadonlySet<EscapeKind>): { char: string; length: number } | null => {
  const c = text[i];
  if (c === '\\' && i + 1 < text.length && kinds.has('backslash')) {
    const e = text[i + 1];
    if (SIMPLE_ESCAPES[e] !== undefined) return { char: SIMPLE_ESCAPES[e], length: 2 };
    if (e === 'u' && HEX.test(text.slice(i + 2, i + 6)) && i + 6 <= text.length) {
      return { char: String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)), length: 6 };
    }
    if (e === 'x' && HEX.test(text.slice(i + 2, i + 4)) && i + 4 <= text.length) {
      return { char: String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16)), length: 4 };
    }
    return null;
  }
  if (c === '%' && kinds.has('percent')) return percentAt(text, i);
  if (c === '&' && kinds.has('reference')) return referenceAt(text, i);
  return null;
};

/** `%HH`, or a run of them that is one UTF-8 sequence; a byte that starts none reads as its Latin-1 character. */
const percentAt = (text: string, i: number): { char: string; length: number } | null => {
  const byteAt = (at: number): number | null => {
    if (text[at] !== '%' || at + 3 > text.length) return null;
    const hex = text.slice(at + 1, at + 3);
    return HEX.test(hex) ? parseInt(hex, 16) : null;
  };
  const first = byteAt(i);
  if (first === null) return null;
  const size = first >= 0xf0 && first < 0xf8 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  if (size > 1 && first < 0xf8) {
    let point = first & (0xff >> (size + 1));
    let valid = true;
    for (let k = 1; k < size && valid; k++) {
      const next = byteAt(i + 3 * k);
      if (next === null || (next & 0xc0) !== 0x80) valid = false;
      else point = (point << 6) | (next & 0x3f);
    }
    if (valid && point <= 0x10ffff) return { char: String.fromCodePoint(point), length: 3 * size };
  }
  return { char: String.fromCharCode(first), length: 3 };
};

/** `&#52;`, `&#x34;` or a few named references (`&quot;`). */
const referenceAt = (text: string, i: number): { char: string; length: number } | null => {
  const end = text.indexOf(';', i);
  if (end < 0 || end - i > 10) return null;
  const body = text.slice(i + 1, end);
  let point: number | null = null;
  if (/^#[0-9]{1,7}$/.test(body)) point = Number(body.slice(1));
  else if (/^#[xX][0-9A-Fa-f]{1,6}$/.test(body)) point = parseInt(body.slice(2), 16);
  else if (NAMED_REFERENCES[body] !== undefined) return { char: NAMED_REFERENCES[body], length: end - i + 1 };
  if (point === null || point > 0x10ffff) return null;
  return { char: String.fromCodePoint(point), length: end - i + 1 };
};
