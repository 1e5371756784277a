import fc from 'fast-check';
import { redactReactorMessage, reactorSecretKeys, reactorSecrets, REDACTED, redactReactorMessageSteps, REDACTION_SLICE } from './reactor-message-redaction';
import { MAX_REACTOR_MESSAGE_LENGTH, reactorMessage } from './reactor-message';

/** The String methods that read a string's characters; indexing (`s[i]`) is the one way to read them that this misses. */
const READING_METHODS = [
  'at', 'charAt', 'charCodeAt', 'codePointAt', 'endsWith', 'includes', 'indexOf', 'lastIndexOf', 'localeCompare', 'match',
  'matchAll', 'normalize', 'replace', 'replaceAll', 'search', 'slice', 'split', 'startsWith', 'substr', 'substring',
  'toLowerCase', 'toUpperCase',
] as const;

/**
 * Runs `run` counting its calls of READING_METHODS. Past `budget` calls it throws, so that a quadratic run fails at
 * once rather than after minutes.
 */
const stringCallsWithin = <T>(budget: number, run: () => T): { result: T; calls: number } => {
  const prototype = String.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = READING_METHODS.map((name) => [name, prototype[name]] as const);
  let calls = 0;
  for (const [name, original] of originals) {
    prototype[name] = function (this: string, ...args: unknown[]) {
      if (++calls > budget) throw new Error(`more than ${budget} calls of String methods`);
      return original.apply(this, args);
    };
  }
  try {
    return { result: run(), calls };
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
};

describe('redactReactorMessage', () => {
  it.each([
    ['a message without secrets', 'amount must be positive', ['4111111111111111'], 'amount must be positive'],
    ['a card number', 'bad: 4111111111111111 cfg=sk_live_1', ['4111111111111111', 'sk_live_1'], 'bad: [redacted] cfg=[redacted]'],
    ['every occurrence', '123-45-6789 / 123-45-6789', ['123-45-6789'], '[redacted] / [redacted]'],
    ["V8's BigInt message", 'SyntaxError: Cannot convert 123-45-6789 to a BigInt', ['123-45-6789'], 'SyntaxError: Cannot convert [redacted] to a BigInt'],
    ['the longest secret first', 'key=abcdef', ['abc', 'abcdef'], 'key=[redacted]'],
    ['overlapping secrets as one', 'x abcdef y', ['abcd', 'cdef'], 'x [redacted] y'],
    ['touching secrets as one', 'x abcdef y', ['abc', 'def'], 'x [redacted] y'],
    ['a secret of three characters', 'cvv 123', ['123'], 'cvv [redacted]'],
    ['not a secret of two characters', 'cvv 12 of 12', ['12'], 'cvv 12 of 12'],
    ['case-sensitively', 'Secret secret', ['secret'], 'Secret [redacted]'],
    ['no secrets at all', 'the code threw', [], 'the code threw'],
    ["V8's JSON.parse excerpt of a secret", `Unexpected token 'h', "hunter2-pa"... is not valid JSON`, ['hunter2-password'], `Unexpected token 'h', "[redacted]"... is not valid JSON`],
    ['a secret in upper case', 'bad: HUNTER2-PASSWORD!', ['hunter2-password'], 'bad: [redacted]!'],
    ['eight characters of a secret in any case', 'near 078-05-11 and 4111-11X', ['078-05-1120', 'ab4111-11x'], 'near [redacted] and [redacted]'],
    ['not a run of seven characters', 'near 078-05-', ['078-05-1120'], 'near 078-05-'],
  ])('takes out %s', (_title, message, secrets, expected) => {
    expect(redactReactorMessage(message, secrets)).toBe(expected);
  });

  it("takes out eight characters or more of an object token's key, not its own short keys", () => {
    const args = { payload: { alice_ssn_key: 'v' } };
    const message = 'payload: unknown field ALICE_SSN_KEY';
    expect(redactReactorMessage(message, reactorSecrets(args), reactorSecretKeys(args))).toBe('payload: unknown field [redacted]');
  });

  it('clips the redacted message to the limit', () => {
    const redacted = redactReactorMessage(`${'abc '.repeat(200)}`, ['abc']);
    expect(redacted).toBe(reactorMessage('[redacted] '.repeat(200)));
    expect(redacted.length).toBe(MAX_REACTOR_MESSAGE_LENGTH);
  });

  it('takes out the start of a secret that a clip at the limit cut short', () => {
    const clipped = reactorMessage(`${'x'.repeat(495)}4111111111111111`);
    expect(clipped).toBe(`${'x'.repeat(495)}4111…`);
    expect(redactReactorMessage(clipped, ['4111111111111111'])).toBe(`${'x'.repeat(495)}[red…`);
  });

  it.each([
    ['the longest start of any secret', ['9999', '4111111111111111', '4111'], `${'x'.repeat(495)}[red…`],
    ['a whole secret just before the clip', ['4111'], `${'x'.repeat(495)}[red…`],
    ['nothing when no secret starts there', ['5555555555555555', 'y4111', '2111'], `${'x'.repeat(495)}4111…`],
  ])('after a clip, takes out %s', (_title, secrets, expected) => {
    expect(redactReactorMessage(`${'x'.repeat(495)}4111…`, secrets)).toBe(expected);
  });

  // Work, not time (the bench measures speed): every way a redaction reads text goes through a String method (but
  // indexing), so counting those calls bounds its work whatever else runs on the machine. Reading the args once is a
  // few calls a character of their secrets; comparing each of the message's 500 characters (or its ends, or windows)
  // with every secret is hundreds.
  it.each([
    ['a clipped message whose end begins the secrets', `b${'a'.repeat(1000)}`, `b${REDACTED}…`],
    ['a clipped message that occurs nowhere in them', 'z'.repeat(1000), `${'z'.repeat(MAX_REACTOR_MESSAGE_LENGTH - 1)}…`],
  ])('reads args of a mebibyte a bounded number of times: %s', (_title, message, expected) => {
    const secrets = reactorSecrets(Array.from({ length: 50_000 }, (_, i) => `aaaaaaaaaaaaaaaaa${i}`), 'a'.repeat(600_000));
    const characters = secrets.reduce((sum, secret) => sum + secret.length, 0);
    const budget = 4 * characters + 10 * secrets.length;
    const { result, calls } = stringCallsWithin(budget, () => redactReactorMessage(reactorMessage(message), secrets));
    expect(calls).toBeLessThanOrEqual(budget);
    expect(result).toBe(expected);
  });

  it('leaves the end of a message that was not clipped', () => {
    expect(redactReactorMessage('ends in 411', ['4111111111111111'])).toBe('ends in 411');
  });
});

describe('reactorSecrets', () => {
  it('gives every string leaf as is and JSON-quoted, and every number and boolean as String() gives it', () => {
    const secrets = reactorSecrets({ card: { number: '4111', holder: 'Jo "J" Doe' }, list: [12345, true] }, { k: 'sk\nx' });
    expect(secrets).toEqual(
      expect.arrayContaining(['4111', '"4111"', 'Jo "J" Doe', '"Jo \\"J\\" Doe"', 'Jo \\"J\\" Doe', '12345', 'true', 'sk\nx', 'sk\\nx']),
    );
    expect(secrets).not.toContain('card');
    expect(secrets).not.toContain('null');
  });

  it("gives every object key below the top level (the formula's names), as is and JSON-escaped", () => {
    expect(reactorSecretKeys({ a: { 'b"c': 1 } }, [{ d: null }], 'e')).toEqual(['b"c', 'b\\"c', 'd']);
  });

  it('finds a secret in a message that quotes the args as JSON', () => {
    const args = { x: 'line one\nline "two"' };
    expect(redactReactorMessage(`bad args: ${JSON.stringify(args)}`, reactorSecrets(args))).toBe('bad args: {"x":[redacted]}');
  });
});

describe('redactReactorMessage, whatever the secrets', () => {
  // Secrets drawn from characters that REDACTED and the clip's … do not use, so any secret found in the result was left in.
  const secret = fc.string({ unit: fc.constantFrom('0', '1', '9', '-', 'X', 'Y', '"', '\\', ' '), minLength: 3, maxLength: 20 });
  const filler = fc.string({ maxLength: 40 });
  const embedded = fc.uniqueArray(secret, { minLength: 1, maxLength: 5 }).chain((secrets) =>
    fc.record({
      secrets: fc.constant(secrets),
      message: fc
        .array(fc.oneof(filler, fc.constantFrom(...secrets), fc.constantFrom(...secrets.map((s) => JSON.stringify(s)))), { maxLength: 30 })
        .map((parts) => parts.join('')),
    }),
  );

  it('leaves no secret of three characters or more in the result, clipped or not', () => {
    fc.assert(
      fc.property(embedded, fc.boolean(), ({ secrets, message }, clip) => {
        const redacted = redactReactorMessage(clip ? reactorMessage(message) : message, reactorSecrets(secrets));
        for (const secret of secrets) expect(redacted).not.toContain(secret);
        expect(redacted.length).toBeLessThanOrEqual(MAX_REACTOR_MESSAGE_LENGTH);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves no run of eight characters of a secret, in any case', () => {
    const cased = fc.tuple(secret.filter((s) => s.length >= 8), fc.nat(), fc.nat(), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }));
    fc.assert(
      fc.property(cased, filler, filler, ([whole, from, length, upper], before, after) => {
        const start = from % (whole.length - 7);
        const run = whole.slice(start, start + 8 + (length % (whole.length - start - 7)));
        const changed = [...run].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c.toLowerCase())).join('');
        const redacted = redactReactorMessage(`${before}${changed}${after}`, reactorSecrets(whole));
        expect(redacted.toLowerCase()).not.toContain(run.toLowerCase());
      }),
      { numRuns: 500 },
    );
  });

  it('keeps no secret, of any characters, in the text it leaves between two REDACTED', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 3, maxLength: 10 }), { maxLength: 4 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 10 }), (secrets, parts) => {
        const message = parts.map((part, i) => part + (secrets[i % Math.max(secrets.length, 1)] ?? '')).join('');
        for (const piece of redactReactorMessage(message, secrets).split(REDACTED)) {
          for (const secret of secrets) expect(piece).not.toContain(secret);
        }
      }),
    );
  });
});

describe('redactReactorMessageSteps', () => {
  it('reads megabytes of secrets in slices (yielding between slices) and gives what redactReactorMessage gives', () => {
    const secrets = reactorSecrets(Array.from({ length: 100 }, (_, i) => `${i}-${'s'.repeat(65_000)}-secret-${i}`));
    const message = `boom: ${'s'.repeat(20)}-secret-42 and secret-7 not shown`;
    const steps = redactReactorMessageSteps(message, secrets);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    // Some 13 million characters of secrets: read in slices of REDACTION_SLICE, not in one go.
    expect(REDACTION_SLICE).toBeLessThanOrEqual(256 * 1024);
    expect(yields).toBeGreaterThan(20);
    expect(step.value).toBe(redactReactorMessage(message, secrets));
    expect(step.value).not.toContain('secret-42');
  });
});
