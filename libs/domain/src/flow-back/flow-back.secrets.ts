// What the flow-back guard looks for: every value a request detokenized (and, for a caller who may not read them, the
// configuration values the code was given), as the texts under which code or a destination may hand it back.
import { encodeBase64 } from '../shared/base64';
import { runSteps, type Steps } from '../shared/steps';
import { MIN_NEEDLE_LENGTH, NeedleSet } from './needles';
import { CHUNK, Pace } from './pace';

/** A value the request put in, and what the caller is shown instead of it. */
export interface FlowBackSource {
  /** The token it came from; null for a configuration value (no token, no audit record). */
  tokenId: string | null;
  /** The value as the code got it: any JSON value. */
  value: unknown;
  /** The caller's own view of it: the token's mask, or REDACTED_VIEW. */
  replacement: string;
}

/** What stands in for a value the caller may not see at all. */
export const REDACTED_VIEW = '[redacted]';

/**
 * Separators removed before comparing, in values and in answers alike: a card number comes back as `4111 1111 …` or
 * `4111-1111-…`, an SSN without its dashes, its hex as a dump (`34 31 31 …`, `34:31:31:…`, lines of `xxd -p`).
 */
export const isDelimiter = (code: number): boolean => {
  if (code < 128) return ASCII_DELIMITERS[code] === 1;
  let known = OTHER_DELIMITERS[code];
  if (known === UNKNOWN) known = OTHER_DELIMITERS[code] = OTHER_DELIMITER.test(String.fromCharCode(code)) ? 1 : 0;
  return known === 1;
};

const ASCII_DELIMITERS = new Uint8Array(128);
for (const char of ' \t\n\v\f\r-./()_+,:') ASCII_DELIMITERS[char.charCodeAt(0)] = 1;
/** Unicode's spaces (what `\s` matches), zero-width spaces and dashes. */
const OTHER_DELIMITER = /[\s\u200b\u2010-\u2015]/;
/** Every UTF-16 unit's answer to OTHER_DELIMITER, filled in as units are met: a pass over a text stays a lookup a unit. */
const UNKNOWN = 2;
const OTHER_DELIMITERS = new Uint8Array(0x10000).fill(UNKNOWN);

/** The one character whose lower case is two characters: kept as is, so that a position in the fold is one in the text. */
const DOTTED_CAPITAL_I = '\u0130';

/** A stretch folded at once; never ends between the two halves of a surrogate pair (folded together). */
const foldPiece = (piece: string): string => {
  const lower = piece.toLowerCase();
  const kept = lower.length === piece.length ? lower : piece.split(DOTTED_CAPITAL_I).map((part) => part.toLowerCase()).join(DOTTED_CAPITAL_I);
  // Σ lower-cases to ς at the end of a word and to σ elsewhere: what surrounds a value must not decide how it reads.
  return kept.includes('ς') ? kept.replaceAll('ς', 'σ') : kept;
};

/**
 * Lower case with every character where it was, so that a position in the fold is a position in the text: the same
 * fold whatever surrounds a character (final sigma reads as σ), `İ` kept as is (its lower case is two characters). In
 * steps: a large text is folded a stretch at a time.
 */
export function* foldCaseSteps(text: string, pace: Pace): Steps<string> {
  const pieces: string[] = [];
  for (let from = 0; from < text.length; ) {
    if (pace.due(CHUNK)) yield;
    let to = Math.min(text.length, from + 8 * CHUNK);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to++;
    pieces.push(foldPiece(text.slice(from, to)));
    from = to;
  }
  return pieces.join('');
}

export const foldCase = (text: string): string => runSteps(foldCaseSteps(text, new Pace()));

/** `text` without its delimiters, and for each character left where it was in `text`; in steps. */
export function* withoutDelimitersSteps(text: string, pace: Pace): Steps<{ text: string; index: Int32Array }> {
  const index = new Int32Array(text.length);
  let kept = 0;
  const parts: string[] = [];
  let runStart = -1;
  for (let from = 0; from < text.length; from += CHUNK) {
    if (pace.due(CHUNK)) yield;
    const to = Math.min(text.length, from + CHUNK);
    for (let i = from; i < to; i++) {
      if (isDelimiter(text.charCodeAt(i))) {
        if (runStart >= 0) parts.push(text.slice(runStart, i));
        runStart = -1;
        continue;
      }
      if (runStart < 0) runStart = i;
      index[kept++] = i;
    }
  }
  if (runStart >= 0) parts.push(text.slice(runStart));
  return { text: parts.join(''), index: index.subarray(0, kept) };
}

export const withoutDelimiters = (text: string): { text: string; index: Int32Array } => runSteps(withoutDelimitersSteps(text, new Pace()));

const utf8 = new TextEncoder();

const hexOf = (bytes: Uint8Array): string => {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
};

/**
 * The base64 characters that only `bytes` decide, wherever in a longer encoded text they start (three alignments, both
 * alphabets): found in an answer, the value is in there, encoded, whatever surrounds it.
 */
export const base64Cores = (bytes: Uint8Array): string[] => {
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const from = Math.ceil((8 * shift) / 6);
    const to = Math.floor((8 * (shift + bytes.length)) / 6);
    for (const url of [false, true]) cores.push(encodeBase64(padded, { url, pad: false }).slice(from, to));
  }
  return cores;
};

/**
 * The texts of a value: a string itself, another value's string form (`String(4111…)`, `JSON.stringify({…})`), and for
 * arrays and objects each leaf's as well (code picks `args.card.number` out of an object token as easily as the whole).
 * Not the keys: they name the parts (`number`, `amount`) and occur in every answer. Shorter than MIN_NEEDLE_LENGTH
 * characters: left out.
 */
export const textsOf = (value: unknown): string[] => {
  const texts = new Set<string>();
  const add = (text: string) => {
    if ([...text].length >= MIN_NEEDLE_LENGTH) texts.add(text);
  };
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') {
    add(String(value));
    return [...texts];
  }
  add(JSON.stringify(value));
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const inner of Object.values(next)) pending.push(inner);
    } else if (next !== null && next !== undefined) {
      add(String(next));
    }
  }
  return [...texts];
};

/** A value as encodeURIComponent, a form body and JSON.stringify write it. */
const escapedForms = (text: string): string[] => {
  let url: string;
  try {
    url = encodeURIComponent(text);
  } catch {
    // A lone surrogate cannot be URL-encoded: no encoder writes one, so there is nothing to look for.
    url = text;
  }
  return [url, url.replace(/%20/g, '+'), JSON.stringify(text).slice(1, -1)];
};

/** The needles of every source, filed by how an answer is read to find them. */
export interface FlowBackNeedles {
  /** Looked for in the answer's case-folded text with its delimiters removed: the value as is, in any case, spaced; its hex. */
  spaced: NeedleSet;
  /** Looked for in the case-folded text: values too short once their delimiters are gone, and the escaped forms. */
  folded: NeedleSet;
  /** Looked for as they are: base64 cores. */
  exact: NeedleSet;
}

export const needlesOf = (sources: readonly FlowBackSource[]): FlowBackNeedles => {
  const needles: FlowBackNeedles = { spaced: new NeedleSet(), folded: new NeedleSet(), exact: new NeedleSet() };
  sources.forEach((source, secret) => {
    for (const text of textsOf(source.value)) {
      const folded = foldCase(text);
      const spaced = withoutDelimiters(folded).text;
      if (spaced.length >= MIN_NEEDLE_LENGTH) needles.spaced.add({ text: spaced, secret });
      else needles.folded.add({ text: folded, secret });
      const bytes = utf8.encode(text);
      needles.spaced.add({ text: hexOf(bytes), secret });
      // The canonical escapes as they are, besides the decoded layers: text written just before an escaped value can
      // itself read as the start of an escape (`%` before `AA%40…`) and make the decoding eat the value's first characters.
      for (const escaped of escapedForms(text)) if (escaped !== text) needles.folded.add({ text: foldCase(escaped), secret });
      const bare = utf8.encode(withoutDelimiters(text).text);
      for (const variant of bare.length >= MIN_NEEDLE_LENGTH && bare.length !== bytes.length ? [bytes, bare] : [bytes]) {
        for (const core of base64Cores(variant)) needles.exact.add({ text: core, secret });
      }
    }
  });
  return needles;
};
