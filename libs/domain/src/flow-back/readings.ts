// An answer's bytes as the texts a reader may take them for, and those texts written back as the same bytes: UTF-8
// when they decode as such, else one character a byte (Latin-1); and UTF-16, little- or big-endian, when they look
// like it. Every conversion goes a chunk at a time, yielding as the pace asks.
import type { Steps } from '../shared/steps';
import { MIN_NEEDLE_LENGTH } from './needles';
import { CHUNK, type Pace } from './pace';

/** Bytes per chunk of a native conversion (TextDecoder, TextEncoder): far cheaper a byte than a pass in code. */
const NATIVE_CHUNK = 16 * CHUNK;

const utf8Encoder = new TextEncoder();

/** The characters of up to CHUNK code units or bytes (apply takes an array-like; spreading a typed array is slower). */
export const charsOf = (units: Uint16Array | Uint8Array): string => String.fromCharCode.apply(null, units as unknown as number[]);

/** A byte order mark stays in the text: written back, the bytes are the same. Not fatal: see textOfBytes. */
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** What a UTF-8 decoder writes for bytes that are not UTF-8, and those bytes when they write it themselves. */
const REPLACEMENT = '\ufffd';
const REPLACEMENT_BYTES = [0xef, 0xbf, 0xbd];

/**
 * Decoded bytes as text: UTF-8 when they are, else one character a byte (Latin-1), so that nothing is lost. Short bytes
 * are UTF-8 when their decoding holds no more U+FFFD than they spell themselves (EF BF BD): a decoder writes one for
 * whatever is not UTF-8, and never reads a byte it wrote one for as part of EF BF BD. No exception is thrown for them:
 * many a short run of base64 decodes to bytes that are not UTF-8, and throwing costs far more than reading them. Long
 * bytes are decoded a chunk at a time, by a decoder that throws at the first byte that is not UTF-8.
 */
export function* textOfBytes(bytes: Uint8Array, pace: Pace): Steps<{ text: string; utf8: boolean }> {
  if (bytes.length <= NATIVE_CHUNK) {
    if (pace.due(bytes.length / 4)) yield;
    const text = utf8Decoder.decode(bytes);
    if (!text.includes(REPLACEMENT) || extraReplacements(text, bytes) === 0) return { text, utf8: true };
    return { text: yield* latin1Of(bytes, pace), utf8: false };
  }
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parts: string[] = [];
  try {
    for (let from = 0; from < bytes.length; from += NATIVE_CHUNK) {
      if (pace.due(NATIVE_CHUNK / 4)) yield;
      const to = Math.min(bytes.length, from + NATIVE_CHUNK);
      parts.push(decoder.decode(bytes.subarray(from, to), { stream: to < bytes.length }));
    }
  } catch {
    return { text: yield* latin1Of(bytes, pace), utf8: false };
  }
  return { text: parts.join(''), utf8: true };
}

/** How many more U+FFFD `text` holds than `bytes` spell (0 when the bytes are UTF-8). */
const extraReplacements = (text: string, bytes: Uint8Array): number => {
  let extra = 0;
  for (let at = text.indexOf(REPLACEMENT); at >= 0; at = text.indexOf(REPLACEMENT, at + 1)) extra++;
  for (let at = bytes.indexOf(REPLACEMENT_BYTES[0]); at >= 0 && extra > 0; at = bytes.indexOf(REPLACEMENT_BYTES[0], at + 1)) {
    if (bytes[at + 1] === REPLACEMENT_BYTES[1] && bytes[at + 2] === REPLACEMENT_BYTES[2]) extra--;
  }
  return extra;
};

function* latin1Of(bytes: Uint8Array, pace: Pace): Steps<string> {
  const parts: string[] = [];
  for (let from = 0; from < bytes.length; from += CHUNK) {
    if (pace.due(CHUNK)) yield;
    parts.push(charsOf(bytes.subarray(from, from + CHUNK)));
  }
  return parts.join('');
}

/** The text back as bytes: UTF-8, or a byte a character (each character's low byte) when it was read as Latin-1. */
export function* bytesOfText(text: string, utf8: boolean, pace: Pace): Steps<Uint8Array> {
  if (utf8) {
    if (pace.due(text.length / 16)) yield;
    return utf8Encoder.encode(text);
  }
  const bytes = new Uint8Array(text.length);
  for (let from = 0; from < text.length; from += CHUNK) {
    if (pace.due(CHUNK)) yield;
    const to = Math.min(text.length, from + CHUNK);
    for (let i = from; i < to; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  }
  return bytes;
}

export type ByteOrder = 'le' | 'be';

/** Where UTF-16 text may start in a body, and in which byte order. */
export interface Utf16Start {
  order: ByteOrder;
  /** 2 after a byte order mark; 0 or 1 otherwise (text after an odd number of other bytes, a part of a larger body). */
  from: number;
}

/**
 * Pairs of bytes, one NUL, in a row that make a body worth reading as UTF-16: the characters below U+0100 of the
 * shortest value, less the one that straddles two pairs when the text starts at an odd offset.
 */
const NUL_RUN = MIN_NEEDLE_LENGTH - 1;

/**
 * Where `bytes` may hold UTF-16 text: after its byte order mark, in the order it names; and wherever it holds a run of
 * characters below U+0100 (a NUL byte each, on the same side: NUL_RUN), what any value written in Latin script, digits
 * or an encoding leaves, however much other text dilutes it. NUL bytes at odd offsets are little-endian text from an
 * even offset or big-endian text from an odd one, and the other way round: both are read.
 */
export function* utf16StartsOf(bytes: Uint8Array, pace: Pace): Steps<Utf16Start[]> {
  const marked: ByteOrder | null = bytes[0] === 0xff && bytes[1] === 0xfe ? 'le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'be' : null;
  let oddNuls = false;
  let evenNuls = false;
  let oddRun = 0;
  let evenRun = 0;
  for (let from = 0; from + 1 < bytes.length && !(oddNuls && evenNuls); from += 2 * CHUNK) {
    if (pace.due(CHUNK)) yield;
    const to = Math.min(bytes.length - 1, from + 2 * CHUNK);
    for (let i = from; i < to; i += 2) {
      const first = bytes[i];
      const second = bytes[i + 1];
      oddRun = first !== 0 && second === 0 ? oddRun + 1 : 0;
      evenRun = first === 0 && second !== 0 ? evenRun + 1 : 0;
      if (oddRun >= NUL_RUN) oddNuls = true;
      if (evenRun >= NUL_RUN) evenNuls = true;
    }
  }
  const starts: Utf16Start[] = [];
  const add = (order: ByteOrder, from: number) => {
    // After a byte order mark, rather than before it: the same characters but the mark.
    if (marked === order && from === 0) from = 2;
    if (!starts.some((start) => start.order === order && start.from === from)) starts.push({ order, from });
  };
  if (marked !== null) add(marked, 2);
  if (oddNuls) {
    add('le', 0);
    add('be', 1);
  }
  if (evenNuls) {
    add('be', 0);
    add('le', 1);
  }
  return starts;
}

/** UTF-16 text read from bytes: the text, and the bytes around it (a byte order mark, an odd last byte) kept as they were. */
export interface Utf16Reading {
  text: string;
  order: ByteOrder;
  head: Uint8Array;
  tail: Uint8Array;
}

/** `bytes` as UTF-16 from `start`, every unit as it is (a lone surrogate too), so that writing it back gives the same bytes. */
export function* utf16Of(bytes: Uint8Array, start: Utf16Start, pace: Pace): Steps<Utf16Reading> {
  const { order, from } = start;
  const units = Math.max(0, (bytes.length - from) >> 1);
  const high = order === 'le' ? 1 : 0;
  const parts: string[] = [];
  const chunk = new Uint16Array(CHUNK);
  for (let unit = 0; unit < units; unit += CHUNK) {
    if (pace.due(2 * CHUNK)) yield;
    const count = Math.min(CHUNK, units - unit);
    for (let k = 0; k < count; k++) {
      const at = from + 2 * (unit + k);
      chunk[k] = (bytes[at + high] << 8) | bytes[at + 1 - high];
    }
    parts.push(charsOf(chunk.subarray(0, count)));
  }
  return { text: parts.join(''), order, head: bytes.subarray(0, from), tail: bytes.subarray(from + 2 * units) };
}

/** A UTF-16 reading's text, changed or not, back as bytes in its byte order, between the bytes that were around it. */
export function* bytesOfUtf16(reading: Utf16Reading, text: string, pace: Pace): Steps<Uint8Array> {
  const bytes = new Uint8Array(reading.head.length + 2 * text.length + reading.tail.length);
  bytes.set(reading.head);
  const high = reading.order === 'le' ? 1 : 0;
  for (let from = 0; from < text.length; from += CHUNK) {
    if (pace.due(2 * CHUNK)) yield;
    const to = Math.min(text.length, from + CHUNK);
    for (let i = from; i < to; i++) {
      const unit = text.charCodeAt(i);
      const at = reading.head.length + 2 * i;
      bytes[at + high] = unit >> 8;
      bytes[at + 1 - high] = unit & 0xff;
    }
  }
  bytes.set(reading.tail, reading.head.length + 2 * text.length);
  return bytes;
}
