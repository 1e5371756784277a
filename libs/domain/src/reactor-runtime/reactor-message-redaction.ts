// A failed run's message with the run's secrets taken out: errors.reactor goes to a caller who may use a token's data
// (token:use) without seeing it, and who may not read the reactor's configuration.
import { MAX_REACTOR_MESSAGE_LENGTH, reactorMessage } from './reactor-message';
import { lowerBound } from '../shared/sorted';

/** What stands in for a secret in errors.reactor. */
export const REDACTED = '[redacted]';

/**
 * Shorter secrets are not looked for: one or two characters (a digit, `ab`) occur everywhere, so taking them out would
 * leave nothing of any message, while showing them tells little.
 */
export const MIN_REDACTED_SECRET_LENGTH = 3;

/**
 * A run of this many characters of a message that occurs anywhere in a secret, in any case, is taken out too: V8 quotes
 * an excerpt of what it could not read (JSON.parse: `Unexpected token 'h', "hunter2-pa"... is not valid JSON`), and code
 * may change a secret's case before it throws it. Shorter runs are words of any message.
 */
export const MIN_REDACTED_RUN_LENGTH = 8;

/**
 * The texts under which the leaves of `values` (detokenized args, configuration values) can appear in a message: each
 * string as is and JSON-quoted (with its escapes: `JSON.stringify(args)` in a throw), each number and boolean as
 * `String()` gives it. Object keys and nulls are not secrets.
 */
export const reactorSecrets = (...values: readonly unknown[]): string[] => {
  const secrets = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      secrets.add(value);
      secrets.add(JSON.stringify(value));
      secrets.add(JSON.stringify(value).slice(1, -1));
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      secrets.add(String(value));
    } else if (Array.isArray(value)) {
      value.forEach(walk);
    } else if (typeof value === 'object' && value !== null) {
      Object.values(value).forEach(walk);
    }
  };
  values.forEach(walk);
  return [...secrets];
};

/**
 * The object keys inside `values` (detokenized args, configuration), as is and JSON-escaped: an object token's keys are
 * its data. Not the top level's: those are the formula's request parameter and configuration names (`card_number`), which
 * name what a message is about. redactReactorMessage takes out only runs of MIN_REDACTED_RUN_LENGTH characters of them.
 */
export const reactorSecretKeys = (...values: readonly unknown[]): string[] => {
  const keys = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        keys.add(key);
        keys.add(JSON.stringify(key).slice(1, -1));
        walk(inner);
      }
    }
  };
  for (const value of values) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) Object.values(value).forEach(walk);
    else walk(value);
  }
  return [...keys];
};

/**
 * `message` with every occurrence of every secret of at least MIN_REDACTED_SECRET_LENGTH characters replaced by
 * REDACTED (case-sensitive), then clipped as reactorMessage clips. Every character that belongs to an occurrence is
 * taken out, overlapping occurrences included: occurrences that overlap or touch become one REDACTED, so no tail of one
 * secret is left beside another (what replacing the longest first would give, and more). Every run of
 * MIN_REDACTED_RUN_LENGTH characters or more of the message that occurs in a secret or a key, in any case, goes too. A message already clipped (it ends in `…` at the limit, as the runtime sends it) also
 * loses the start of a secret cut by the clip: the longest end of its text that begins a secret.
 */
export const redactReactorMessage = (message: string, secrets: readonly string[], keys: readonly string[] = []): string => {
  const steps = redactReactorMessageSteps(message, secrets, keys);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
};

/**
 * Characters of secrets read between two yields of redactReactorMessageSteps: a few milliseconds' work. Args may hold
 * 100 tokens of 64 KiB each, some 20 MB of secret text with their JSON forms, which in one go held the event loop
 * 84-131 ms (a review measured it).
 */
export const REDACTION_SLICE = 256 * 1024;

/**
 * redactReactorMessage in steps: yields after every REDACTION_SLICE characters of secrets read, so that a caller can
 * give the event loop a turn between steps; the last step returns the message.
 */
export function* redactReactorMessageSteps(message: string, secrets: readonly string[], keys: readonly string[] = []): Generator<void, string> {
  const candidates = [...new Set(secrets)].filter((secret) => secret.length >= MIN_REDACTED_SECRET_LENGTH);
  const clipped = message.length === MAX_REACTOR_MESSAGE_LENGTH && message.endsWith('…');
  const text = clipped ? message.slice(0, -1) : message;
  // covered[i]: the character at i is part of a secret.
  const covered = new Uint8Array(text.length);
  let read = 0;
  for (const secret of candidates) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) covered.fill(1, at, at + secret.length);
    read += Math.min(secret.length, text.length);
    if (read >= REDACTION_SLICE) {
      read = 0;
      yield;
    }
  }
  yield* coverSharedRuns(text, [...secrets, ...keys], covered);
  if (clipped) {
    const cut = cutSecretLength(text, candidates);
    covered.fill(1, text.length - cut);
  }
  let redacted = '';
  for (let i = 0; i < text.length; i++) {
    if (!covered[i]) redacted += text[i];
    else if (i === 0 || !covered[i - 1]) redacted += REDACTED;
  }
  return reactorMessage(clipped ? `${redacted}…` : redacted);
}

/**
 * Marks in `covered` every window of MIN_REDACTED_RUN_LENGTH characters of `text` that occurs, case-insensitively, in
 * one of `secrets` (overlapping windows make longer runs). The message is short and the secrets up to a few MiB: the
 * message's windows go in a table by a rolling hash, and each secret is read once, one hash update a character; only a
 * hash hit costs a comparison.
 */
function* coverSharedRuns(text: string, secrets: readonly string[], covered: Uint8Array): Generator<void, void> {
  const width = MIN_REDACTED_RUN_LENGTH;
  if (text.length < width) return;
  const folded = fold(text);
  /** Each distinct window of the message, by hash: where it starts. */
  const windows = new Map<number, Map<string, number[]>>();
  /** A quick first test before the Map: whether any window of the message has a hash with these low bits. */
  const seen = new Uint8Array(FILTER_SIZE);
  let hash = 0;
  for (let i = 0; i < folded.length; i++) {
    hash = roll(hash, i >= width ? folded.charCodeAt(i - width) : -1, folded.charCodeAt(i));
    if (i < width - 1) continue;
    const start = i - width + 1;
    const window = folded.slice(start, i + 1);
    const byText = windows.get(hash) ?? new Map<string, number[]>();
    windows.set(hash, byText);
    seen[hash & (FILTER_SIZE - 1)] = 1;
    byText.set(window, [...(byText.get(window) ?? []), start]);
  }
  let read = 0;
  for (const secret of secrets) {
    if (windows.size === 0) return;
    if (secret.length < width) continue;
    read += secret.length;
    if (read >= REDACTION_SLICE) {
      read = 0;
      yield;
    }
    const lower = fold(secret);
    hash = 0;
    for (let i = 0; i < lower.length; i++) {
      hash = roll(hash, i >= width ? lower.charCodeAt(i - width) : -1, lower.charCodeAt(i));
      if (i < width - 1 || seen[hash & (FILTER_SIZE - 1)] === 0) continue;
      const byText = windows.get(hash);
      if (!byText) continue;
      const window = lower.slice(i - width + 1, i + 1);
      const starts = byText.get(window);
      if (!starts) continue;
      for (const start of starts) covered.fill(1, start, start + width);
      // Found once is enough: a window is never looked for again.
      byText.delete(window);
      if (byText.size === 0) windows.delete(hash);
    }
  }
}

const BASE = 31;
/** Read once: a global looked up a character at a time is slow where globals sit behind an interceptor (a vm context). */
const imul = Math.imul;
const FILTER_SIZE = 1 << 16;
/** Hashes stay small integers (30 bits), which V8 keeps unboxed. */
const HASH_MASK = 0x3fffffff;
/** BASE to the power MIN_REDACTED_RUN_LENGTH - 1, modulo 2^32: the weight of the character leaving the window. */
const LEAVING_WEIGHT = Array.from({ length: MIN_REDACTED_RUN_LENGTH - 1 }).reduce<number>((power) => imul(power, BASE), 1);

/** The hash of a window moved one character on: `leaving` out (-1 while the window fills), `entering` in. */
const roll = (hash: number, leaving: number, entering: number): number => {
  const without = leaving < 0 ? hash : hash - imul(leaving, LEAVING_WEIGHT);
  return (imul(without, BASE) + entering) & HASH_MASK;
};

/**
 * Lower case with every character where it was, so that a window of the fold is a window of the text. toLowerCase
 * changes the length of a few strings (`İ`); those are folded a character at a time, keeping such a character as is.
 */
const fold = (text: string): string => {
  const lower = text.toLowerCase();
  const same = lower.length === text.length ? lower : Array.from({ length: text.length }, (_, i) => foldUnit(text[i])).join('');
  return same.replace(/ς/g, 'σ');
};

const foldUnit = (unit: string): string => {
  const lower = unit.toLowerCase();
  return lower.length === 1 ? lower : unit;
};

/**
 * How many characters at the end of `text` are the start of a secret (cut short by the clip), the most of any. Secrets
 * come from args of up to 1 MiB: sorted, each end of `text` is one binary search, not a scan of every secret.
 */
const cutSecretLength = (text: string, secrets: readonly string[]): number => {
  // One character more than `text` has is enough to tell a secret longer than any end of it.
  const sorted = secrets.map((secret) => secret.slice(0, text.length + 1)).sort();
  for (let start = 0; start < text.length; start++) {
    const end = text.slice(start);
    let i = lowerBound(sorted, end);
    while (i < sorted.length && sorted[i] === end) i++;
    if (i < sorted.length && sorted[i].startsWith(end)) return end.length;
  }
  return 0;
};
