// Runs of base64 in a text: unbroken, or wrapped in lines as MIME and PEM write it (76 or 64 characters a line, `\r\n`
// or `\n` between, spaces or tabs around the break), decoded and encoded again a chunk at a time.
import { decodeAnyBase64, encodeBase64 } from '../shared/base64';
import type { Steps } from '../shared/steps';
import { CHUNK, type Pace } from './pace';

/** A run of base64 text worth decoding: at least the encoding of a shortest value. */
export const MIN_BASE64_RUN = 6;

export const isBase64Char = (code: number): boolean =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 45 || code === 95;

const EQUALS = 61;

/** Characters decoded at once: a multiple of four, so that the chunks' bytes are the run's. */
const DECODE_CHUNK = 4 * CHUNK;
/** Bytes encoded at once: a multiple of three, so that the chunks' characters are the run's. */
const ENCODE_CHUNK = 3 * CHUNK;

/** The bytes a run of base64 encodes, either alphabet (never both mixed), padding optional; null when it is not base64. */
export function* decodeRun(run: string, pace: Pace): Steps<Uint8Array | null> {
  if (pace.due(run.length)) yield;
  if (run.length <= DECODE_CHUNK) return decodeAnyBase64(run);
  const body = run.replace(/={1,2}$/, '');
  if (body.length % 4 === 1 || (/[-_]/.test(body) && /[+/]/.test(body))) return null;
  const bytes = new Uint8Array(Math.floor((body.length * 6) / 8));
  for (let from = 0, at = 0; from < body.length; from += DECODE_CHUNK) {
    if (pace.due(DECODE_CHUNK)) yield;
    const part = decodeAnyBase64(body.slice(from, from + DECODE_CHUNK));
    if (part === null) return null;
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** `bytes` in base64, in the given alphabet and padding. */
export function* encodeRun(bytes: Uint8Array, options: { url: boolean; pad: boolean }, pace: Pace): Steps<string> {
  const parts: string[] = [];
  for (let from = 0; from < bytes.length; from += ENCODE_CHUNK) {
    if (pace.due(2 * ENCODE_CHUNK)) yield;
    const to = Math.min(bytes.length, from + ENCODE_CHUNK);
    parts.push(encodeBase64(bytes.subarray(from, to), { url: options.url, pad: to === bytes.length && options.pad }));
  }
  return parts.join('');
}

/**
 * Every run of at least MIN_BASE64_RUN base64 characters in `text`, with up to two `=` after it, as start and end
 * offsets one after the other (what `/[A-Za-z0-9+/_-]{6,}={0,2}/g` matches, read a chunk at a time).
 */
export function* base64Runs(text: string, pace: Pace): Steps<number[]> {
  const runs: number[] = [];
  let start = -1;
  for (let from = 0; from < text.length; from += CHUNK) {
    if (pace.due(CHUNK)) yield;
    for (let i = from, last = Math.min(text.length, from + CHUNK); i < last; i++) {
      if (isBase64Char(text.charCodeAt(i))) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        if (i - start >= MIN_BASE64_RUN) runs.push(start, paddedEnd(text, i));
        start = -1;
      }
    }
  }
  if (start >= 0 && text.length - start >= MIN_BASE64_RUN) runs.push(start, text.length);
  return runs;
}

/** Where a run of base64 that ends at `end` ends with its padding (two `=` at most). */
const paddedEnd = (text: string, end: number): number => {
  if (text.charCodeAt(end) === EQUALS) end++;
  if (text.charCodeAt(end) === EQUALS) end++;
  return end;
};

/** The extent of the run of base64 around `from` to `to` in `text`, its padding included. */
export const runAround = (text: string, from: number, to: number): [number, number] => {
  while (from > 0 && isBase64Char(text.charCodeAt(from - 1))) from--;
  while (to < text.length && isBase64Char(text.charCodeAt(to))) to++;
  return [from, paddedEnd(text, to)];
};

/** A text with its line breaks inside base64 taken out, and for each character left where it was in the text. */
export interface JoinedLines {
  text: string;
  index: Int32Array;
}

const isBlank = (code: number): boolean => code === 32 || code === 9;

/**
 * `text` with every line break between two base64 characters removed, with the spaces and tabs around it: base64
 * wrapped in lines reads as one run. A blank line still ends a run (MIME ends a part's base64 there). Null when the
 * text has no such break.
 */
export function* joinedLines(text: string, pace: Pace): Steps<JoinedLines | null> {
  if (!/[\r\n]/.test(text)) return null;
  const removed: number[] = [];
  const lineBreak = /\r\n?|\n/g;
  for (let found = lineBreak.exec(text); found !== null; found = lineBreak.exec(text)) {
    // Blanks are read twice at most: back from the break after them, on from the break before them.
    let from = found.index;
    let to = from + found[0].length;
    while (from > 0 && isBlank(text.charCodeAt(from - 1))) from--;
    while (to < text.length && isBlank(text.charCodeAt(to))) to++;
    if (pace.due(16 + to - from)) yield;
    if (from > 0 && to < text.length && isBase64Char(text.charCodeAt(from - 1)) && isBase64Char(text.charCodeAt(to))) removed.push(from, to);
  }
  if (removed.length === 0) return null;
  let left = text.length;
  for (let k = 0; k < removed.length; k += 2) left -= removed[k + 1] - removed[k];
  const index = new Int32Array(left);
  const parts: string[] = [];
  let kept = 0;
  for (let k = 0, from = 0; k <= removed.length; k += 2) {
    const to = k < removed.length ? removed[k] : text.length;
    parts.push(text.slice(from, to));
    for (let chunk = from; chunk < to; chunk += CHUNK) {
      if (pace.due(CHUNK)) yield;
      for (let i = chunk, last = Math.min(to, chunk + CHUNK); i < last; i++) index[kept++] = i;
    }
    from = k < removed.length ? removed[k + 1] : text.length;
  }
  return { text: parts.join(''), index };
}

/** A stretch of a joined view that may be one base64 text wrapped in lines, and where it may end (in the view). */
export interface WrappedBlock {
  from: number;
  /** Ends to try in turn: with its last line, or without it when that line is likely text after the base64. */
  ends: number[];
}

/**
 * The blocks of wrapped base64 in the run `from` to `to` of a joined view (a run that spans a break): lines as an
 * encoder writes them, all as long as the first but the last, which is no longer. A word on the line before or after
 * the base64 (`hello`, a MIME boundary) is a line of another length, and starts or ends a block. When the block is not
 * a multiple of four characters long and is without its last line, that line is likely text after the base64 (a
 * `--boundary` right after a full line): the block is tried without it first.
 */
export function* wrappedBlocks(view: JoinedLines, from: number, to: number, pace: Pace): Steps<WrappedBlock[]> {
  const starts: number[] = [from];
  for (let chunk = from + 1; chunk < to; chunk += CHUNK) {
    if (pace.due(CHUNK)) yield;
    for (let j = chunk, last = Math.min(to, chunk + CHUNK); j < last; j++) if (view.index[j] !== view.index[j - 1] + 1) starts.push(j);
  }
  starts.push(to);
  const blocks: WrappedBlock[] = [];
  for (let i = 0; i < starts.length - 1; ) {
    const width = starts[i + 1] - starts[i];
    let j = i + 1;
    while (j < starts.length - 1 && starts[j] - starts[j - 1] === width && starts[j + 1] - starts[j] <= width) j++;
    // Lines i to j - 1: the block, from starts[i] to starts[j].
    const lines = j - i;
    const whole = starts[j] - starts[i];
    const withoutLast = starts[j - 1] - starts[i];
    if (whole % 4 !== 0 && withoutLast % 4 === 0) {
      if (lines >= 3) blocks.push({ from: starts[i], ends: [starts[j - 1], starts[j]] });
      // The last line may start a block of its own.
      i = lines >= 2 ? j - 1 : j;
    } else {
      if (lines >= 2) blocks.push({ from: starts[i], ends: [starts[j]] });
      i = j;
    }
  }
  return blocks;
}

/**
 * `encoded` written in the lines of the block `from` to `to` of a joined view: each line as long as the one it
 * replaces and the same break after it, past the last of them as long as the longest; the last line what is left.
 */
export function* rewrap(text: string, view: JoinedLines, from: number, to: number, encoded: string, pace: Pace): Steps<string> {
  const lengths: number[] = [];
  const breaks: string[] = [];
  let lineStart = from;
  for (let chunk = from + 1; chunk < to; chunk += CHUNK) {
    if (pace.due(CHUNK)) yield;
    for (let j = chunk, last = Math.min(to, chunk + CHUNK); j < last; j++) {
      if (view.index[j] === view.index[j - 1] + 1) continue;
      lengths.push(j - lineStart);
      breaks.push(text.slice(view.index[j - 1] + 1, view.index[j]));
      lineStart = j;
    }
  }
  lengths.push(to - lineStart);
  if (breaks.length === 0) return encoded;
  let width = 0;
  for (const length of lengths) width = Math.max(width, length);
  const out: string[] = [];
  let at = 0;
  for (let k = 0; encoded.length - at > (k < lengths.length - 1 ? lengths[k] : width); k++) {
    if (k % 64 === 0 && pace.due(64 * 4)) yield;
    const length = k < lengths.length - 1 ? lengths[k] : width;
    out.push(encoded.slice(at, at + length), breaks[Math.min(k, breaks.length - 1)]);
    at += length;
  }
  out.push(encoded.slice(at));
  return out.join('');
}
