// A failed run's message with the run's secrets taken out: errors.reactor goes to a caller who may use a token's data
// (token:use) without seeing it, and who may not read the reactor's configuration (API.md "Errors").
import { MAX_REACTOR_MESSAGE_LENGTH, reactorMessage } from './reactor-runtime.port';

/** What stands in for a secret in errors.reactor. */
export const REDACTED = '[redacted]';

/**
 * Shorter secrets are not looked for: one or two characters (a digit, `ab`) occur everywhere, so taking them out would
 * leave nothing of any message, while showing them tells little.
 */
export const MIN_REDACTED_SECRET_LENGTH = 3;

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
 * `message` with every occurrence of every secret of at least MIN_REDACTED_SECRET_LENGTH characters replaced by
 * REDACTED (case-sensitive), then clipped as reactorMessage clips. Every character that belongs to an occurrence is
 * taken out, overlapping occurrences included: occurrences that overlap or touch become one REDACTED, so no tail of one
 * secret is left beside another (what replacing the longest first would give, and more). A message already clipped (it ends in `…` at the limit, as the runtime sends it) also
 * loses the start of a secret cut by the clip: the longest end of its text that begins a secret.
 */
export const redactReactorMessage = (message: string, secrets: readonly string[]): string => {
  const candidates = [...new Set(secrets)].filter((secret) => secret.length >= MIN_REDACTED_SECRET_LENGTH);
  const clipped = message.length === MAX_REACTOR_MESSAGE_LENGTH && message.endsWith('…');
  const text = clipped ? message.slice(0, -1) : message;
  // covered[i]: the character at i is part of a secret.
  const covered = new Uint8Array(text.length);
  for (const secret of candidates) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) covered.fill(1, at, at + secret.length);
  }
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

/** The first index of `sorted` whose string is not below `value`. */
const lowerBound = (sorted: readonly string[], value: string): number => {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
};
