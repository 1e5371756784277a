// The backstop behind "no caller learns more of a token than its own rule shows", for answers the vault does not write
// itself: a reactor's result and a proxied destination's answer. Code or a destination may hand back what the request
// put in (an echoing endpoint does), so before such an answer reaches the caller every value detokenized for the request
// is replaced by the caller's own view of its token, wherever it appears: as is (any case), with its delimiters removed
// or others put in, JSON-escaped, URL-encoded, as HTML character references, in hex, and in base64 or base64url (whole,
// or inside a longer encoded text, or wrapped in lines), to a few layers of nesting; in a body of bytes, in UTF-8,
// Latin-1 or UTF-16. Every pass over an answer is linear and goes in steps, so a large one never holds the event loop
// for long (pace.ts).
import { encodeBase64 } from '../shared/base64';
import type { Steps } from '../shared/steps';
import { base64Runs, decodeRun, encodeRun, isBase64Char, joinedLines, type JoinedLines, rewrap, runAround, wrappedBlocks } from './base64-runs';
import { type FlowBackNeedles, type FlowBackSource, foldCaseSteps, needlesOf, withoutDelimitersSteps } from './flow-back.secrets';
import { MAX_COMPARED_CHARACTERS, MIN_NEEDLE_LENGTH, type Needle } from './needles';
import { Pace } from './pace';
import { bytesOfText, bytesOfUtf16, textOfBytes, utf16Of, utf16StartsOf } from './readings';
import { originalSpan, type TextLayer, textLayers } from './text-layers';

/** Base64 inside base64 (inside base64) is decoded this deep. */
export const MAX_BASE64_DEPTH = 3;

/** Checks of a text after the first, while the last encoded a run of base64 anew: see guardText. */
const MAX_RECHECKS = 2;

/** Leaves of a JSON answer checked between two yields. */
const LEAVES_PER_STEP = 256;

/** What checking one more text costs besides its characters (its layers, folds and scans set up), in pace work. */
const TEXT_OVERHEAD = 64;

interface Edit {
  start: number;
  end: number;
  text: string;
  /** A base64 run encoded again with the values replaced inside it: preferred over replacing the run whole. */
  precise?: boolean;
}

interface Check {
  budget: { left: number };
  pace: Pace;
}

const newCheck = (): Check => ({ budget: { left: MAX_COMPARED_CHARACTERS }, pace: new Pace() });

const utf8Encoder = new TextEncoder();

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
    return (yield* this.guardText(text, 0, newCheck())).text;
  }

  /**
   * A body of any type: as UTF-8 text when it decodes as such, else each byte as one character (the values looked for
   * are text, and found among bytes that way); and first as UTF-16 text when it may be some (a byte order mark, or
   * characters a NUL byte each: utf16StartsOf), written back in its byte order. The same bytes come back when nothing
   * was replaced.
   */
  *bytes(body: Uint8Array): Steps<Uint8Array> {
    if (this.isEmpty || body.length === 0) return body;
    const check = newCheck();
    let guarded = body;
    for (const start of yield* utf16StartsOf(body, check.pace)) {
      const reading = yield* utf16Of(guarded, start, check.pace);
      const text = (yield* this.guardText(reading.text, 0, check)).text;
      if (text !== reading.text) guarded = yield* bytesOfUtf16(reading, text, check.pace);
    }
    const { text, utf8 } = yield* textOfBytes(guarded, check.pace);
    const checked = (yield* this.guardText(text, 0, check)).text;
    return checked === text ? guarded : yield* bytesOfText(checked, utf8, check.pace);
  }

  /**
   * A JSON answer: every string and key checked, and every number and boolean by its string form (one that held a value
   * becomes the text it reads as once replaced). Returns a new value; `value` is left as it was.
   */
  *json(value: unknown): Steps<unknown> {
    if (this.isEmpty) return value;
    const check = newCheck();
    const leaves = { count: 0 };
    return yield* this.guardJson(value, check, leaves);
  }

  /** Header values checked; a header whose name held a value is left out (a name cannot hold the replacement). */
  *headers(entries: ReadonlyArray<readonly [string, string]>): Steps<Array<[string, string]>> {
    if (this.isEmpty) return entries.map(([name, value]) => [name, value]);
    const check = newCheck();
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

  /**
   * A text checked, and checked again while a run of base64 was encoded anew: its text replaced that of every edit it
   * overlaps, and what those found around the value (its hex right after the run) may be there still, encoded again.
   */
  private *guardText(text: string, depth: number, check: Check): Steps<{ text: string; replaced: Set<number> }> {
    let checked = yield* this.guardOnce(text, depth, check);
    for (let again = 0; checked.reencoded && again < MAX_RECHECKS; again++) {
      const next = yield* this.guardOnce(checked.text, depth, check);
      for (const secret of checked.replaced) next.replaced.add(secret);
      checked = next;
    }
    return checked;
  }

  private *guardOnce(text: string, depth: number, check: Check): Steps<{ text: string; replaced: Set<number>; reencoded: boolean }> {
    const replaced = new Set<number>();
    if (text.length < MIN_NEEDLE_LENGTH) return { text, replaced, reencoded: false };
    if (check.pace.due(TEXT_OVERHEAD)) yield;
    const { budget, pace } = check;
    const edits: Edit[] = [];
    const cover = (layer: TextLayer, from: number, to: number, secret: number, encoded?: { url: boolean }) => {
      const [start, end] = originalSpan(layer, from, to);
      const replacement = this.sources[secret].replacement;
      edits.push({ start, end, text: encoded ? encodeBase64(utf8Encoder.encode(replacement), { ...encoded, pad: false }) : replacement });
      replaced.add(secret);
    };
    for (const [n, layer] of (yield* textLayers(text, pace)).entries()) {
      const folded = yield* foldCaseSteps(layer.text, pace);
      const spaced = yield* withoutDelimitersSteps(folded, pace);
      yield* this.needles.spaced.scan(
        spaced.text,
        (at: number, needle: Needle) => cover(layer, spaced.index[at], spaced.index[at + needle.text.length - 1] + 1, needle.secret),
        budget,
        pace,
      );
      yield* this.needles.folded.scan(folded, (at, needle) => cover(layer, at, at + needle.text.length, needle.secret), budget, pace);
      // A base64 core: the value is somewhere in the encoded run around it, which goes whole.
      const covered = { secret: -1, from: -1, to: -1 };
      yield* this.needles.exact.scan(
        layer.text,
        (at, needle) => {
          // Runs met again (a long run holds many cores) are not walked again: a scan stays linear.
          if (at < covered.from || at >= covered.to) [covered.from, covered.to] = runAround(layer.text, at, at + needle.text.length);
          else if (covered.secret === needle.secret) return;
          covered.secret = needle.secret;
          cover(layer, covered.from, covered.to, needle.secret, { url: /[-_]/.test(layer.text.slice(covered.from, covered.to)) });
        },
        budget,
        pace,
      );
      // Wrapped in lines, base64 is read with its lines joined: what spans a break is new there. A core that does goes
      // with the characters its value's bytes share with their neighbours; the block it is in, decoded, is replaced
      // precisely below when it can be.
      const joined = yield* joinedLines(layer.text, pace);
      if (joined !== null) {
        yield* this.needles.exact.scan(
          joined.text,
          (at, needle) => {
            const end = at + needle.text.length;
            if (!spansBreak(joined, at, end)) return;
            const before = at > 0 && isBase64Char(joined.text.charCodeAt(at - 1)) ? at - 1 : at;
            const after = end < joined.text.length && isBase64Char(joined.text.charCodeAt(end)) ? end + 1 : end;
            const [from, to] = inLayer(joined, before, after);
            cover(layer, from, to, needle.secret, { url: /[-_]/.test(layer.text.slice(from, to)) });
          },
          budget,
          pace,
        );
      }
      if (depth >= MAX_BASE64_DEPTH) continue;
      const runs = yield* base64Runs(layer.text, pace);
      for (let k = 0; k < runs.length; k += 2) yield* this.guardRun(layer, n, null, runs[k], runs[k + 1], depth, check, edits, replaced);
      if (joined === null) continue;
      const joinedRuns = yield* base64Runs(joined.text, pace);
      for (let k = 0; k < joinedRuns.length; k += 2) {
        if (!spansBreak(joined, joinedRuns[k], joinedRuns[k + 1])) continue;
        for (const block of yield* wrappedBlocks(joined, joinedRuns[k], joinedRuns[k + 1], pace)) {
          for (const end of block.ends) if (yield* this.guardRun(layer, n, joined, block.from, end, depth, check, edits, replaced)) break;
        }
      }
    }
    for (const secret of replaced) this.replaced.add(secret);
    const reencoded = edits.some((edit) => edit.precise === true);
    return { text: yield* applyEdits(text, edits, pace), replaced, reencoded };
  }

  /**
   * The run of base64 `from` to `to` of a view of a layer (itself, or its lines joined), decoded and checked: when it
   * held a value, in the original text it is encoded again with the values replaced (in its alphabet, padding and
   * lines), in a decoded layer it goes whole. Whether it held one.
   */
  private *guardRun(
    layer: TextLayer,
    n: number,
    view: JoinedLines | null,
    from: number,
    to: number,
    depth: number,
    check: Check,
    edits: Edit[],
    replaced: Set<number>,
  ): Steps<boolean> {
    const { pace } = check;
    if (pace.due(TEXT_OVERHEAD)) yield;
    const run = (view === null ? layer.text : view.text).slice(from, to);
    const bytes = yield* decodeRun(run, pace);
    if (bytes === null || bytes.length < MIN_NEEDLE_LENGTH) return false;
    const decoded = yield* textOfBytes(bytes, pace);
    const inner = yield* this.guardText(decoded.text, depth + 1, check);
    if (inner.replaced.size === 0) return false;
    const [start, end] = inLayer(view, from, to);
    for (const secret of inner.replaced) replaced.add(secret);
    if (n === 0) {
      const encoded = yield* encodeRun(yield* bytesOfText(inner.text, decoded.utf8, pace), { url: /[-_]/.test(run), pad: run.endsWith('=') }, pace);
      edits.push({ start, end, text: view === null ? encoded : yield* rewrap(layer.text, view, from, to, encoded, pace), precise: true });
    } else {
      const [originalStart, originalEnd] = originalSpan(layer, start, end);
      for (const secret of inner.replaced) edits.push({ start: originalStart, end: originalEnd, text: this.sources[secret].replacement });
    }
    return true;
  }
}

/** Whether the characters `from` to `to` of a joined view were not next to each other in its text. */
const spansBreak = (view: JoinedLines, from: number, to: number): boolean => view.index[to - 1] - view.index[from] !== to - from - 1;

/** The span of a layer that the characters `from` to `to` of a view of it (itself, or its lines joined) come from. */
const inLayer = (view: JoinedLines | null, from: number, to: number): [number, number] =>
  view === null ? [from, to] : [view.index[from], view.index[to - 1] + 1];

/** `text` with each edit's span replaced by its text; overlapping spans become one, replaced by the first's text. */
function* applyEdits(text: string, edits: Edit[], pace: Pace): Steps<string> {
  if (edits.length === 0) return text;
  // Each pass found its edits in order: the sort merges runs that are sorted already.
  if (pace.due(edits.length)) yield;
  edits.sort((a, b) => a.start - b.start || b.end - a.end || Number(b.precise === true) - Number(a.precise === true));
  const parts: string[] = [];
  let at = 0;
  for (let k = 0; k < edits.length; ) {
    if (pace.due(TEXT_OVERHEAD)) yield;
    const first = edits[k];
    let end = first.end;
    for (k++; k < edits.length && edits[k].start < end; k++) end = Math.max(end, edits[k].end);
    parts.push(text.slice(at, first.start), first.text);
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
