// A text as it reads once its escapes are undone, with where each decoded character came from: a value written
// JSON-escaped (`\u0034`), URL-encoded (`%34`) or as an HTML character reference (`&#52;`), or any mix of them, is
// found in the decoded layer and replaced in the original text.
//
// Every pass is linear: an escape is read from its first character on, over a bounded stretch (a reference's name at
// most MAX_REFERENCE_LENGTH characters, its digits only as far as they go), and a pass yields between chunks of text.
import type { Steps } from '../shared/steps';
import { CHUNK, Pace } from './pace';
import { charsOf } from './readings';

/** One reading of a text: its characters, and for each the span of the original text it was decoded from. */
export interface TextLayer {
  text: string;
  /** `start[i]` and `end[i]`: the original characters decoded into `text[i]`; null for the original text itself. */
  start: Int32Array | null;
  end: Int32Array | null;
}

/** Decoding passes after the original: an escape of an escape (`%5Cu0034`) takes two. */
export const MAX_DECODED_LAYERS = 3;

/** The longest named character reference read, `&` and `;` included: past it, an `&` starts none. */
export const MAX_REFERENCE_LENGTH = 32;

/** Kinds of escape, as bits: a pass decodes those of its mask. */
const BACKSLASH_ESCAPES = 1;
const PERCENT_ESCAPES = 2;
const REFERENCES = 4;
const ALL_KINDS = BACKSLASH_ESCAPES | PERCENT_ESCAPES | REFERENCES;

/**
 * The original text; each decoding of it that changed something, every kind of escape at once, each one pass further;
 * and each kind alone, once: noise written before a value (`\` before `r%40…`) would otherwise make the decoding of
 * one kind eat a character of another's.
 */
export function* textLayers(text: string, pace: Pace = new Pace()): Steps<TextLayer[]> {
  const original: TextLayer = { text, start: null, end: null };
  const layers: TextLayer[] = [original];
  for (let pass = 0, last = original; pass < MAX_DECODED_LAYERS; pass++) {
    const next = yield* decodeOnce(last, ALL_KINDS, pace);
    if (next === null) break;
    layers.push(next);
    last = next;
  }
  if (layers.length > 1) {
    for (const kind of [BACKSLASH_ESCAPES, PERCENT_ESCAPES, REFERENCES]) {
      const alone = yield* decodeOnce(original, kind, pace);
      if (alone !== null && alone.text !== layers[1].text) layers.push(alone);
    }
  }
  return layers;
}

/** Where in the original text the characters `from` to `to` (exclusive) of a layer came from. */
export const originalSpan = (layer: TextLayer, from: number, to: number): [number, number] =>
  layer.start === null || layer.end === null ? [from, to] : [layer.start[from], layer.end[to - 1]];

const BACKSLASH = 92;
const PERCENT = 37;
const AMPERSAND = 38;
const SEMICOLON = 59;
const HASH = 35;

/** The value of a hexadecimal digit, or -1. */
const hexDigit = (code: number): number =>
  code >= 48 && code <= 57 ? code - 48 : code >= 65 && code <= 70 ? code - 55 : code >= 97 && code <= 102 ? code - 87 : -1;

/** The number the `count` hexadecimal digits at `at` write, or -1 when one is not a digit or the text ends first. */
const hexAt = (text: string, at: number, count: number): number => {
  if (at + count > text.length) return -1;
  let value = 0;
  for (let k = 0; k < count; k++) {
    const digit = hexDigit(text.charCodeAt(at + k));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
};

/** What a backslash and the character after it write, by that character's code; 0 where they write nothing. */
const SIMPLE_ESCAPES = new Uint8Array(128);
for (const [escape, char] of Object.entries({ '"': '"', '\\': '\\', '/': '/', "'": "'", b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' })) {
  SIMPLE_ESCAPES[escape.charCodeAt(0)] = char.charCodeAt(0);
}

const NAMED_REFERENCES: Record<string, number> = { quot: 0x22, amp: 0x26, lt: 0x3c, gt: 0x3e, apos: 0x27, nbsp: 0xa0 };

/** One pass: every escape the layer holds decoded once, or null when it holds none. */
function* decodeOnce(layer: TextLayer, kinds: number, pace: Pace): Steps<TextLayer | null> {
  if (!/[\\%&]/.test(layer.text)) return null;
  const pass = new DecodingPass(layer, kinds);
  while (!pass.done) {
    if (pace.due(CHUNK)) yield;
    pass.decode(CHUNK);
  }
  if (!pass.changed) return null;
  const parts: string[] = [];
  for (let from = 0; from < pass.length; from += CHUNK) {
    if (pace.due(CHUNK / 4)) yield;
    parts.push(charsOf(pass.units.subarray(from, Math.min(pass.length, from + CHUNK))));
  }
  return { text: parts.join(''), start: pass.start.subarray(0, pass.length), end: pass.end.subarray(0, pass.length) };
}

/**
 * A pass of decodeOnce, a chunk at a time: its state in fields, its loop over locals (a generator's own loop runs
 * slower), the decoded text as UTF-16 units. Every escape is at least two characters decoded into at most two units:
 * the decoded text is never longer than the one decoded.
 */
class DecodingPass {
  private readonly source: string;
  readonly units: Uint16Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  length = 0;
  changed = false;
  private at = 0;

  constructor(
    private readonly from: TextLayer,
    private readonly kinds: number,
  ) {
    this.source = from.text;
    this.units = new Uint16Array(this.source.length);
    this.start = new Int32Array(this.source.length);
    this.end = new Int32Array(this.source.length);
  }

  get done(): boolean {
    return this.at >= this.source.length;
  }

  /** Decodes on from where the last chunk ended: `count` characters, and the escape that straddles the end. */
  decode(count: number): void {
    const { source, units, start, end, kinds } = this;
    const fromStart = this.from.start;
    const fromEnd = this.from.end;
    const last = Math.min(source.length, this.at + count);
    let length = this.length;
    let i = this.at;
    while (i < last) {
      const code = source.charCodeAt(i);
      const size = code === BACKSLASH || code === PERCENT || code === AMPERSAND ? escapeAt(source, i, kinds) : 0;
      if (size === 0) {
        units[length] = code;
        start[length] = fromStart === null ? i : fromStart[i];
        end[length] = fromEnd === null ? i + 1 : fromEnd[i];
        length++;
        i++;
        continue;
      }
      const spanStart = fromStart === null ? i : fromStart[i];
      const spanEnd = fromEnd === null ? i + size : fromEnd[i + size - 1];
      // A code point of two UTF-16 units: both units come from the same span.
      if (decodedPoint > 0xffff) {
        units[length] = 0xd800 + ((decodedPoint - 0x10000) >> 10);
        start[length] = spanStart;
        end[length] = spanEnd;
        length++;
        units[length] = 0xdc00 + ((decodedPoint - 0x10000) & 0x3ff);
      } else {
        units[length] = decodedPoint;
      }
      start[length] = spanStart;
      end[length] = spanEnd;
      length++;
      i += size;
      this.changed = true;
    }
    this.length = length;
    this.at = i;
  }
}

/** The code point the last escape read decodes to: escapeAt returns how long it is, and leaves this. */
let decodedPoint = 0;

/** How many characters the escape that starts at `i` spans (its code point left in decodedPoint); 0 when none does. */
const escapeAt = (text: string, i: number, kinds: number): number => {
  const c = text.charCodeAt(i);
  if (c === BACKSLASH && i + 1 < text.length && (kinds & BACKSLASH_ESCAPES) !== 0) {
    const e = text.charCodeAt(i + 1);
    if (e < 128 && SIMPLE_ESCAPES[e] !== 0) {
      decodedPoint = SIMPLE_ESCAPES[e];
      return 2;
    }
    const digits = e === 0x75 ? 4 : e === 0x78 ? 2 : 0; // \uHHHH, \xHH
    if (digits === 0) return 0;
    const unit = hexAt(text, i + 2, digits);
    if (unit < 0) return 0;
    decodedPoint = unit;
    return 2 + digits;
  }
  if (c === PERCENT && (kinds & PERCENT_ESCAPES) !== 0) return percentAt(text, i);
  if (c === AMPERSAND && (kinds & REFERENCES) !== 0) return referenceAt(text, i);
  return 0;
};

/** The byte `%HH` at `at` writes, or -1. */
const percentByteAt = (text: string, at: number): number => (text.charCodeAt(at) === PERCENT ? hexAt(text, at + 1, 2) : -1);

/** `%HH`, or a run of them that is one UTF-8 sequence; a byte that starts none reads as its Latin-1 character. */
const percentAt = (text: string, i: number): number => {
  const first = percentByteAt(text, i);
  if (first < 0) return 0;
  const size = first >= 0xf0 && first < 0xf8 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  if (size > 1 && first < 0xf8) {
    let point = first & (0xff >> (size + 1));
    let valid = true;
    for (let k = 1; k < size && valid; k++) {
      const next = percentByteAt(text, i + 3 * k);
      if (next < 0 || (next & 0xc0) !== 0x80) valid = false;
      else point = (point << 6) | (next & 0x3f);
    }
    if (valid && point <= 0x10ffff) {
      decodedPoint = point;
      return 3 * size;
    }
  }
  decodedPoint = first;
  return 3;
};

/**
 * `&#52;`, `&#x34;` (with any number of leading zeros, and without the `;` as browsers read them too) or a few named
 * references (`&quot;`). A name is looked for over MAX_REFERENCE_LENGTH characters at most; digits are read as far as
 * they go, which no other reference shares, so every pass stays linear.
 */
const referenceAt = (text: string, i: number): number => {
  if (text.charCodeAt(i + 1) === HASH) {
    const hex = text.charCodeAt(i + 2) === 0x78 || text.charCodeAt(i + 2) === 0x58; // x, X
    let at = i + (hex ? 3 : 2);
    const digitsFrom = at;
    let point = 0;
    for (; at < text.length; at++) {
      const code = text.charCodeAt(at);
      const digit = hex ? hexDigit(code) : code >= 48 && code <= 57 ? code - 48 : -1;
      if (digit < 0) break;
      // Past the last code point the value stays past it, however many digits follow.
      if (point <= 0x10ffff) point = point * (hex ? 16 : 10) + digit;
    }
    if (at === digitsFrom || point > 0x10ffff) return 0;
    if (text.charCodeAt(at) === SEMICOLON) at++;
    decodedPoint = point;
    return at - i;
  }
  const last = Math.min(text.length, i + MAX_REFERENCE_LENGTH);
  for (let at = i + 1; at < last; at++) {
    const code = text.charCodeAt(at);
    if (code === SEMICOLON) {
      const name = text.slice(i + 1, at);
      if (!Object.hasOwn(NAMED_REFERENCES, name)) return 0;
      decodedPoint = NAMED_REFERENCES[name];
      return at - i + 1;
    }
    const alphanumeric = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    if (!alphanumeric) return 0;
  }
  return 0;
};
