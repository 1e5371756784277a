// Finding a secret again: any window of WINDOW characters of it, in a response or a log line, as text, inside the
// strings of the JSON it holds (which undoes escapes), or percent-decoded.
import { WINDOW } from './hostile-values';

/** Every string in a parsed JSON value, keys included; iterative. */
const stringsIn = (value: unknown): string[] => {
  const out: string[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') out.push(node);
    else if (Array.isArray(node)) pending.push(...node);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        out.push(key);
        pending.push(child);
      }
    }
  }
  return out;
};

/** The text, the strings of the JSON it holds, and those of them that percent-decode. */
const haystacksOf = (text: string): string[] => {
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  const strings = [text, ...stringsIn(parsed)];
  for (const string of [...strings]) {
    if (!string.includes('%')) continue;
    try {
      strings.push(decodeURIComponent(string));
    } catch {
      // not percent-encoding
    }
  }
  return strings;
};

/**
 * The windows of a set of secrets. A window with a digit is also found in any case (the service lower-cases
 * containers, and a parser may upper-case what it quotes): our vocabulary has no word with a digit in it. One without
 * is found only as sent, since lower-cased our words could spell it (`tenant`, `append`).
 */
export class SecretWindows {
  private readonly exact = new Set<string>();
  private readonly folded = new Set<string>();

  constructor(secrets: Iterable<string> = []) {
    for (const secret of secrets) this.add(secret);
  }

  add(secret: string): void {
    for (let i = 0; i + WINDOW <= secret.length; i++) {
      const window = secret.slice(i, i + WINDOW);
      if (/[0-9]/.test(window)) this.folded.add(window.toLowerCase());
      else this.exact.add(window);
    }
  }

  get size(): number {
    return this.exact.size + this.folded.size;
  }

  /** The first window found in `text`, or null. Linear in the length of the text. */
  foundIn(text: string): string | null {
    for (const haystack of haystacksOf(text)) {
      const lower = haystack.toLowerCase();
      for (let i = 0; i + WINDOW <= haystack.length; i++) {
        const window = haystack.slice(i, i + WINDOW);
        if (this.exact.has(window)) return window;
      }
      for (let i = 0; i + WINDOW <= lower.length; i++) {
        const window = lower.slice(i, i + WINDOW);
        if (this.folded.has(window)) return window;
      }
    }
    return null;
  }
}

/** The first window of one of `secrets` found in `text`, or null. */
export const echoedWindow = (text: string, secrets: string[]): string | null => new SecretWindows(secrets).foundIn(text);

/** Each line holding a window, with the window. */
export const linesHolding = (lines: string[], windows: SecretWindows): { window: string; line: string }[] =>
  lines.flatMap((line) => {
    const window = windows.foundIn(line);
    return window === null ? [] : [{ window, line }];
  });
