// Everything a text may be an encoding of, for answers written by code or a destination the caller does not control
// (a proxied destination's answer): the text's escapes undone (JSON backslash and \u escapes, percent and form
// encoding, HTML character references), runs of hex and of base64 or base64url decoded at every alignment, characters
// kept apart by a delimiter brought together, and all of that again on what each decoding gives, a few layers deep.
// Written from the encodings, not from the vault's guard: the two must agree only on what an answer reads as.

/** Decodings of decodings: base64 inside base64 inside URL encoding is three. */
export const MAX_DEPTH = 3;
/** Characters decoded for one text, all layers together; past it, what is left is not decoded further. */
const BUDGET = 4_000_000;

const HEX_RUN = /[0-9A-Fa-f]{10,}/g;
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}/g;
/** Five or more single characters each followed by the same separator: `4 1 1 1 1`, `4.5.7.-.8.2`. */
const SPACED_RUNS = [' ', '.', '-'].map((d) => {
  const e = `\\${d}`;
  return { d, run: new RegExp(`(?:[^${e}]${e}){4,}[^${e}]`, 'g') };
});

const NAMED: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0' };

const fromCodePoint = (point: number): string => (point >= 0 && point <= 0x10ffff ? String.fromCodePoint(point) : '');

/** JSON's and JavaScript's backslash escapes. */
const unbackslash = (text: string): string =>
  text.replace(/\\(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|u\{([0-9A-Fa-f]{1,6})\}|(["\\/'bfnrt]))/g, (_all, u, x, braced, simple) => {
    if (u) return String.fromCharCode(parseInt(u, 16));
    if (x) return String.fromCharCode(parseInt(x, 16));
    if (braced) return fromCodePoint(parseInt(braced, 16));
    return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[simple] ?? simple;
  });

/** Percent and form encoding, leniently: a `%` that starts no escape stays, and bytes that are not UTF-8 read as Latin-1. */
const unpercent = (text: string): string =>
  text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    return textOfBytes(bytes);
  });

const unform = (text: string): string => unpercent(text.replace(/\+/g, ' '));

const unreference = (text: string): string =>
  text.replace(/&(?:#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([a-z]{2,6}));/g, (all, dec, hex, name) => {
    if (dec) return fromCodePoint(Number(dec));
    if (hex) return fromCodePoint(parseInt(hex, 16));
    return NAMED[name] ?? all;
  });

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 when the bytes are, else one character a byte. */
const textOfBytes = (bytes: Buffer): string => {
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
};

/**
 * Whether decoded bytes read as text: what an encoding of text decodes to at its own alignment. The other alignments,
 * and runs that only look like base64 (words, ids), decode to bytes most of which are not printable.
 */
const readsAsText = (text: string): boolean => {
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x20 && code < 0x7f) || code === 9 || code === 10 || code === 13 || code >= 0xa0) printable++;
  }
  return printable >= 0.85 * text.length;
};

/** Each run of hex digits decoded, from its first and from its second digit. */
const hexDecodings = (text: string): string[] => {
  const out: string[] = [];
  for (const run of text.match(HEX_RUN) ?? []) {
    for (const offset of [0, 1]) {
      const even = run.slice(offset, offset + ((run.length - offset) & ~1));
      if (even.length >= 10) out.push(textOfBytes(Buffer.from(even, 'hex')));
    }
  }
  return out.filter(readsAsText);
};


/** Each run of base64 or base64url characters decoded at each of its four alignments. */
const base64Decodings = (text: string): string[] => {
  const out: string[] = [];
  for (const run of text.match(BASE64_RUN) ?? []) {
    const standard = run.replace(/-/g, '+').replace(/_/g, '/');
    for (let offset = 0; offset < 4 && offset + 8 <= standard.length; offset++) {
      const bytes = Buffer.from(standard.slice(offset), 'base64');
      out.push(textOfBytes(bytes));
    }
  }
  return out.filter(readsAsText);
};

/** The text with each spaced-out run of characters written together (every other character of the run dropped). */
const despaced = (text: string): string =>
  SPACED_RUNS.reduce((out, { run, d }) => (out.includes(d) ? out.replace(run, (found) => [...found].filter((_, i) => i % 2 === 0).join('')) : out), text);

/**
 * The readings of a whole text: its escapes undone (each kind alone, and all together, twice over for an escape of an
 * escape), and its spaced-out runs brought together. What they hold encoded (hex, base64) is decoded separately.
 */
const readingsOf = (text: string): string[] => {
  const out = new Set<string>([text, despaced(text)]);
  if (/[\\%&]/.test(text)) {
    if (text.includes('\\')) out.add(unbackslash(text));
    if (text.includes('%')) out.add(unpercent(text)).add(unform(text));
    if (text.includes('&')) out.add(unreference(text));
    const once = unreference(unpercent(unbackslash(text)));
    out.add(once).add(unreference(unpercent(unbackslash(once))));
  }
  return [...out];
};

/**
 * The text and everything it decodes to, up to MAX_DEPTH layers of hex and base64. `scrub` takes out what is random by
 * construction (ids, times) from every text, before it is decoded and after: a UUID decoded out of base64 is no data.
 */
export const decodingsOf = (text: string, scrub: (text: string) => string = (t) => t): string[] => {
  const seen = new Set<string>();
  const budget = { left: BUDGET };
  const visit = (current: string, depth: number) => {
    for (const reading of readingsOf(scrub(current))) {
      const clean = scrub(reading);
      if (clean.length < 5 || seen.has(clean) || budget.left <= 0) continue;
      seen.add(clean);
      budget.left -= clean.length;
      if (depth >= MAX_DEPTH) continue;
      for (const decoded of [...hexDecodings(clean), ...base64Decodings(clean)]) visit(decoded, depth + 1);
    }
  };
  visit(text, 0);
  return [...seen];
};
