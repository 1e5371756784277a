// The backstop behind "no caller learns more of a token than its own rule shows", for answers the vault does not write
// itself: a reactor's result and a proxied destination's answer. Code or a destination may hand back what the request
// put in (an echoing endpoint does), so before such an answer reaches the caller every value detokenized for the request
// is replaced by the caller's own view of its token, wherever it appears: as is (any case), with its delimiters removed
// or others put in, JSON-escaped, URL-encoded, as HTML character references, in hex, and in base64 or base64url (whole,
// or inside a longer encoded text), to a few layers of nesting.
import { decodeAnyBase64, encodeBase64 } from '../shared/base64';
import type { Steps } from '../shared/steps';
import { foldCase, type FlowBackNeedles, type FlowBackSource, needlesOf, withoutDelimiters } from './flow-back.secrets';
import { MAX_COMPARED_CHARACTERS, MIN_NEEDLE_LENGTH, type Needle } from './needles';
import { originalSpan, type TextLayer, textLayers } from './text-layers';

/** Base64 inside base64 (inside base64) is decoded this deep. */
export const MAX_BASE64_DEPTH = 3;

/** A run of base64 text worth decoding: at least the encoding of a shortest value. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{6,}={0,2}/g;
const isBase64Char = (code: number): boolean =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 45 || code === 95;

/** Leaves of a JSON answer checked between two yields. */
const LEAVES_PER_STEP = 256;

interface Edit {
  start: number;
  end: number;
  text: string;
  /** A base64 run encoded again with the values replaced inside it: preferred over replacing the run whole. */
  precise?: boolean;
}

interface Check {
  budget: { left: number };
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Decoded bytes as text: UTF-8 when they are, else one character a byte (Latin-1), so that nothing is lost. */
const textOfBytes = (bytes: Uint8Array): { text: string; utf8: boolean } => {
  try {
    return { text: utf8Decoder.decode(bytes), utf8: true };
  } catch {
    let text = '';
    for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return { text, utf8: false };
  }
};

const bytesOfText = (text: string, utf8: boolean): Uint8Array =>
  utf8 ? utf8Encoder.encode(text) : Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff);

/**
 * One request's guard: built from the values it detokenized, used on every answer of code or destination it returns,
 * and asked afterwards which tokens it replaced (each an audit record). Methods are steps (tokenize/steps.ts): a large
 * answer is checked with turns of the event loop in between.
 */
export class FlowBackGuard {
  private readonly needles: FlowBackNeedles;
  private readonly replaced = new Set<number>();

  private constructor(private readonly sources: readonly FlowBackSource[]) {
    this.needles = needlesOf(sources);
  }

  /** Sources whose replacement shows everything (the caller's view is reveal) are left out by the caller. */
  static of(sources: readonly FlowBackSource[]): FlowBackGuard {
    return new FlowBackGuard(sources);
  }

  /** Nothing to look for: every answer passes as it is. */
  get isEmpty(): boolean {
    return this.needles.spaced.size + this.needles.folded.size + this.needles.exact.size === 0;
  }

  /** The distinct tokens whose values some answer held, in the order first replaced. */
  replacedTokenIds(): string[] {
    const ids = [...this.replaced].map((secret) => this.sources[secret].tokenId).filter((id): id is string => id !== null);
    return [...new Set(ids)];
  }

  /** A text answer (a body that is not JSON, a header value, an error message). */
  *text(text: string): Steps<string> {
    if (this.isEmpty) return text;
    return (yield* this.guardText(text, 0, { budget: { left: MAX_COMPARED_CHARACTERS } })).text;
  }

  /**
   * A body of any type: as UTF-8 text when it decodes as such, else each byte as one character (the values looked for
   * are text, and found among bytes that way). The same bytes come back when nothing was replaced.
   */
  *bytes(body: Uint8Array): Steps<Uint8Array> {
    if (this.isEmpty || body.length === 0) return body;
    const { text, utf8 } = textOfBytes(body);
    const guarded = yield* this.text(text);
    return guarded === text ? body : bytesOfText(guarded, utf8);
  }

  /**
   * A JSON answer: every string and key checked, and every number and boolean by its string form (one that held a value
   * becomes the text it reads as once replaced). Returns a new value; `value` is left as it was.
   */
  *json(value: unknown): Steps<unknown> {
    if (this.isEmpty) return value;
    const check: Check = { budget: { left: MAX_COMPARED_CHARACTERS } };
    const leaves = { count: 0 };
    return yield* this.guardJson(value, check, leaves);
  }

  /** Header values checked; a header whose name held a value is left out (a name cannot hold the replacement). */
  *headers(entries: ReadonlyArray<readonly [string, string]>): Steps<Array<[string, string]>> {
    if (this.isEmpty) return entries.map(([name, value]) => [name, value]);
    const check: Check = { budget: { left: MAX_COMPARED_CHARACTERS } };
    const kept: Array<[string, string]> = [];
    for (const [name, value] of entries) {
      const guardedName = yield* this.guardText(name, 0, check);
      if (guardedName.text !== name) continue;
      kept.push([name, (yield* this.guardText(value, 0, check)).text]);
    }
    return kept;
  }

  private *guardJson(value: unknown, check: Check, leaves: { count: number }): Steps<unknown> {
    if (++leaves.count % LEAVES_PER_STEP === 0) yield;
    if (typeof value === 'string') return (yield* this.guardText(value, 0, check)).text;
    if (typeof value === 'number' || typeof value === 'boolean') {
      const text = String(value);
      const guarded = yield* this.guardText(text, 0, check);
      return guarded.text === text ? value : guarded.text;
    }
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value) items.push(yield* this.guardJson(item, check, leaves));
      return items;
    }
    if (typeof value === 'object' && value !== null) {
      const object: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        const guardedKey = (yield* this.guardText(key, 0, check)).text;
        // Defined, not assigned: a key named __proto__ stays a key.
        Object.defineProperty(object, guardedKey, {
          value: yield* this.guardJson(inner, check, leaves),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    return value;
  }

  private *guardText(text: string, depth: number, check: Check): Steps<{ text: string; replaced: Set<number> }> {
    const replaced = new Set<number>();
    if (text.length < MIN_NEEDLE_LENGTH) return { text, replaced };
    const edits: Edit[] = [];
    const cover = (layer: TextLayer, from: number, to: number, secret: number, encoded?: { url: boolean }) => {
      const [start, end] = originalSpan(layer, from, to);
      const replacement = this.sources[secret].replacement;
      edits.push({ start, end, text: encoded ? encodeBase64(utf8Encoder.encode(replacement), { ...encoded, pad: false }) : replacement });
      replaced.add(secret);
    };
    for (const [n, layer] of textLayers(text).entries()) {
      const folded = foldCase(layer.text);
      const spaced = withoutDelimiters(folded);
      yield* this.needles.spaced.scan(
        spaced.text,
        (at: number, needle: Needle) => cover(layer, spaced.index[at], spaced.index[at + needle.text.length - 1] + 1, needle.secret),
        check.budget,
      );
      yield* this.needles.folded.scan(folded, (at, needle) => cover(layer, at, at + needle.text.length, needle.secret), check.budget);
      yield* this.needles.exact.scan(
        layer.text,
        (at, needle) => {
          // A base64 core: the value is somewhere in the encoded run around it, which goes whole.
          let from = at;
          let to = at + needle.text.length;
          while (from > 0 && isBase64Char(layer.text.charCodeAt(from - 1))) from--;
          while (to < layer.text.length && isBase64Char(layer.text.charCodeAt(to))) to++;
          while (to < layer.text.length && layer.text[to] === '=') to++;
          cover(layer, from, to, needle.secret, { url: /[-_]/.test(layer.text.slice(from, to)) });
        },
        check.budget,
      );
      if (depth >= MAX_BASE64_DEPTH) continue;
      for (const run of layer.text.matchAll(BASE64_RUN)) {
        const bytes = decodeAnyBase64(run[0]);
        if (bytes === null || bytes.length < MIN_NEEDLE_LENGTH) continue;
        const decoded = textOfBytes(bytes);
        const inner = yield* this.guardText(decoded.text, depth + 1, check);
        if (inner.replaced.size === 0) continue;
        const from = run.index;
        const to = from + run[0].length;
        if (n === 0) {
          // The run decodes exactly: encoded again with the values replaced, in its own alphabet and padding.
          const reencoded = encodeBase64(bytesOfText(inner.text, decoded.utf8), { url: /[-_]/.test(run[0]), pad: run[0].endsWith('=') });
          edits.push({ start: from, end: to, text: reencoded, precise: true });
          for (const secret of inner.replaced) replaced.add(secret);
        } else {
          for (const secret of inner.replaced) cover(layer, from, to, secret);
        }
      }
    }
    for (const secret of replaced) this.replaced.add(secret);
    return { text: applyEdits(text, edits), replaced };
  }
}

/** `text` with each edit's span replaced by its text; overlapping spans become one, replaced by the first's text. */
const applyEdits = (text: string, edits: Edit[]): string => {
  if (edits.length === 0) return text;
  edits.sort((a, b) => a.start - b.start || b.end - a.end || Number(b.precise === true) - Number(a.precise === true));
  const merged: Edit[] = [];
  for (const edit of edits) {
    const last = merged[merged.length - 1];
    if (last && edit.start < last.end) last.end = Math.max(last.end, edit.end);
    else merged.push({ ...edit });
  }
  let out = '';
  let at = 0;
  for (const edit of merged) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
};
