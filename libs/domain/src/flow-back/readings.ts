// An answer's bytes as the text a reader may take them for, and that text written back as the same bytes: UTF-8 when
// they decode as such, else one character a byte (Latin-1). Every conversion goes a chunk at a time, yielding as the
// pace asks.
import type { Steps } from '../shared/steps';
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
