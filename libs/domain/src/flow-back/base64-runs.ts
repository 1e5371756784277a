// Runs of base64 in a text, found, decoded and encoded again a chunk at a time.
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
