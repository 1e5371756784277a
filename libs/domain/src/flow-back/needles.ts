// Many strings looked for in one text at once: each needle is filed under a hash of its first four characters, and the
// text is read once, a hash per position, comparing only the needles filed under it.
import type { Steps } from '../shared/steps';
import { CHUNK, type Pace } from './pace';

/** Every needle is at least this long: shorter values are not looked for (they occur everywhere). */
export const MIN_NEEDLE_LENGTH = 4;

/**
 * Characters compared while checking one text, past which the text is not checked further and the guard refuses it
 * (FlowBackUncheckableError): only needles crafted to share their starts with a crafted text get near it.
 */
export const MAX_COMPARED_CHARACTERS = 64_000_000;

/** A position scanned weighs this many characters of a simple pass (a hash and a lookup). */
const SCAN_WEIGHT = 4;

export interface Needle {
  text: string;
  /** The secret it stands for. */
  secret: number;
}

/** A text too costly to check; whoever asked refuses to answer with it rather than answer unchecked. */
export class FlowBackUncheckableError extends Error {
  constructor() {
    super('The answer could not be checked for token data within the bounds of one request.');
  }
}

const imul = Math.imul;

const keyAt = (text: string, i: number): number =>
  (imul(imul(imul(text.charCodeAt(i), 31) + text.charCodeAt(i + 1), 31) + text.charCodeAt(i + 2), 31) + text.charCodeAt(i + 3)) | 0;

export class NeedleSet {
  private readonly byKey = new Map<number, Needle[]>();
  private count = 0;

  add(needle: Needle): void {
    if (needle.text.length < MIN_NEEDLE_LENGTH) return;
    const key = keyAt(needle.text, 0);
    const filed = this.byKey.get(key);
    if (filed) {
      if (filed.some((other) => other.text === needle.text && other.secret === needle.secret)) return;
      filed.push(needle);
    } else {
      this.byKey.set(key, [needle]);
    }
    this.count++;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Calls `found(at, needle)` for every occurrence of every needle in `text`, overlapping ones included. `budget` is
   * shared by the calls of one check: it counts the characters compared, and running out throws. `pace` too: the scan
   * yields once its share of a step is done.
   */
  *scan(text: string, found: (at: number, needle: Needle) => void, budget: { left: number }, pace: Pace): Steps<void> {
    if (this.count === 0) return;
    const last = text.length - MIN_NEEDLE_LENGTH;
    for (let i = 0; i <= last; i++) {
      if (i % CHUNK === 0 && pace.due(CHUNK * SCAN_WEIGHT)) yield;
      const filed = this.byKey.get(keyAt(text, i));
      if (filed === undefined) continue;
      let compared = 0;
      for (const needle of filed) {
        compared += needle.text.length;
        budget.left -= needle.text.length;
        if (budget.left < 0) throw new FlowBackUncheckableError();
        if (text.startsWith(needle.text, i)) found(i, needle);
      }
      if (pace.due(compared)) yield;
    }
  }
}
