import fc from 'fast-check';
import { runSteps } from '../shared/steps';
import { FlowBackGuard } from './flow-back.guard';
import { REDACTED_VIEW } from './flow-back.secrets';
import { FlowBackUncheckableError } from './needles';

const CARD = '4111111111111111';
const SSN = '078-05-1120';
const SSN_MASK = 'XXX-XX-1120';

const guardOf = (...sources: Array<[string | null, unknown, string]>) =>
  FlowBackGuard.of(sources.map(([tokenId, value, replacement]) => ({ tokenId, value, replacement })));

const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

describe('FlowBackGuard.text', () => {
  const guard = () => guardOf(['card', CARD, REDACTED_VIEW], ['ssn', SSN, SSN_MASK]);

  it.each<[string, (value: string) => string]>([
    ['as is', (v) => v],
    ['upper-cased', (v) => v.toUpperCase()],
    ['JSON-quoted', (v) => JSON.stringify(v)],
    ['JSON-escaped, every character', (v) => [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['URL-encoded', (v) => encodeURIComponent(v)],
    ['percent-encoded, every character', (v) => [...v].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
    ['as HTML character references', (v) => [...v].map((c) => `&#${c.charCodeAt(0)};`).join('')],
    ['without delimiters', (v) => v.replace(/-/g, '')],
    ['with spaces put in', (v) => v.replace(/(\d{4})/g, '$1 ')],
    ['in hex', (v) => Buffer.from(v).toString('hex')],
    ['in upper-case hex', (v) => Buffer.from(v).toString('hex').toUpperCase()],
    ['in hex, a space between bytes', (v) => [...Buffer.from(v)].map((b) => b.toString(16).padStart(2, '0')).join(' ')],
    ['in hex, a colon between bytes', (v) => [...Buffer.from(v)].map((b) => b.toString(16).padStart(2, '0')).join(':')],
    ['in hex, in lines of a dump', (v) => Buffer.from(`${'-'.repeat(25)}${v}`).toString('hex').replace(/(.{60})/g, '$1\n')],
    ['in base64', (v) => b64(v)],
    ['in base64url', (v) => b64url(v)],
    ['in base64 of a longer text', (v) => b64(`{"card":"${v}","n":1}`)],
    ['in base64, one character off its alignment', (v) => `x${b64(`ab${v}`)}`],
    ['in base64 of base64', (v) => b64(b64(v))],
    ['in base64 of a URL-encoded text', (v) => b64(`q=${encodeURIComponent(v)}`)],
    ['URL-encoded base64', (v) => encodeURIComponent(b64(`::${v}`))],
    ['JSON-escaped twice', (v) => JSON.stringify(JSON.stringify({ v }))],
  ])('replaces a value %s', (_title, encode) => {
    for (const value of [CARD, SSN]) {
      const answer = `before ${encode(value)} after`;
      const guarded = runSteps(guard().text(answer));
      expect(guarded).not.toContain(value);
      expect(guarded).not.toContain(encode(value));
      expect(guarded.replace(/[^0-9]/g, '')).not.toContain(value.replace(/[^0-9]/g, ''));
      expect(guarded.startsWith('before ')).toBe(true);
    }
  });

  it("puts the caller's view where the value was: the mask, else [redacted]", () => {
    const guard = guardOf(['card', CARD, REDACTED_VIEW], ['ssn', SSN, SSN_MASK]);
    expect(runSteps(guard.text(`card ${CARD}, ssn ${SSN}`))).toBe(`card ${REDACTED_VIEW}, ssn ${SSN_MASK}`);
    expect(runSteps(guard.text(b64(`ssn=${SSN}`)))).toBe(b64(`ssn=${SSN_MASK}`));
    expect(guard.replacedTokenIds()).toEqual(['card', 'ssn']);
  });

  it('checks again a text in which it encoded a run of base64 anew: what lay in the run besides is not carried through', () => {
    // 18 characters: their base64 has no padding, so their hex right after it is part of the same run; encoded anew with
    // a mask as long as the value, the run spells that hex again.
    const value = '411111111111111122';
    const mask = 'XXXXXXXXXXXXXXXX22';
    const hex = Buffer.from(value).toString('hex');
    const guard = guardOf(['card', value, mask]);
    expect(runSteps(guard.text(`x ${b64(value)}${hex} y`))).toBe(`x ${b64(mask)}${mask} y`);
  });

  it('leaves an answer that holds no value as it is, and records nothing', () => {
    const guard = guardOf(['card', CARD, REDACTED_VIEW]);
    const answer = 'approved: 4111 is the BIN, 1111 the last four; ref NDExMTEx';
    expect(runSteps(guard.text(answer))).toBe(answer);
    expect(guard.replacedTokenIds()).toEqual([]);
  });

  it('looks for no value shorter than four characters', () => {
    const guard = guardOf(['pin', '123', REDACTED_VIEW], ['flag', true, REDACTED_VIEW]);
    expect(runSteps(guard.text('123 true 123'))).toBe(`123 ${REDACTED_VIEW} 123`);
  });

  it("looks for an object's JSON and its leaves, not its keys", () => {
    const data = { holder: 'Jane Q Public', number: 4012888888881881 };
    const guard = guardOf(['obj', data, REDACTED_VIEW]);
    const guarded = runSteps(guard.text(`name Jane Q Public, n=4012888888881881, keys: holder, whole: ${JSON.stringify(data)}`));
    expect(guarded).toBe(`name ${REDACTED_VIEW}, n=${REDACTED_VIEW}, keys: holder, whole: ${REDACTED_VIEW}`);
  });

  it('folds a value the same whatever surrounds it: a final sigma, a dotted capital I elsewhere in the answer', () => {
    const guard = guardOf(['name', 'ΟΔΥΣΣΕΑΣ', REDACTED_VIEW]);
    // Lower-cased alone, the value ends in ς; followed by a letter, or folded a character at a time (İ), in σ.
    expect(runSteps(guard.text('ΟΔΥΣΣΕΑΣΑ'))).toBe(`${REDACTED_VIEW}Α`);
    expect(runSteps(guard.text('İstanbul: ΟΔΥΣΣΕΑΣ'))).toBe(`İstanbul: ${REDACTED_VIEW}`);
    expect(runSteps(guard.text('odysseas οδυσσεασ'))).toBe(`odysseas ${REDACTED_VIEW}`);
  });

  it('refuses a text it cannot check within its bounds rather than answer unchecked', () => {
    const values = Array.from({ length: 2000 }, (_, i) => `aaaa${'a'.repeat(i)}b`);
    const guard = FlowBackGuard.of(values.map((value) => ({ tokenId: 't', value, replacement: REDACTED_VIEW })));
    expect(() => runSteps(guard.text('a'.repeat(100_000)))).toThrow(FlowBackUncheckableError);
  });
});

describe('FlowBackGuard.json and .headers', () => {
  it('replaces values in strings, keys, numbers and nested values, and keeps the rest of the shape', () => {
    const guard = guardOf(['card', CARD, 'XXXXXXXXXXXX1111']);
    const raw = {
      status: 200,
      echo: { card_number: CARD, [CARD]: 'as a key', list: [Number(CARD), `x${b64(CARD)}`], ok: true },
      __proto__: 'kept',
    };
    const guarded = runSteps(guard.json(JSON.parse(JSON.stringify(raw)))) as Record<string, unknown>;
    expect(JSON.stringify(guarded)).not.toMatch(/4111111111111111|NDExMTExMTExMTExMTExMQ/);
    expect(guarded).toMatchObject({ status: 200, echo: { card_number: 'XXXXXXXXXXXX1111', XXXXXXXXXXXX1111: 'as a key', ok: true } });
    expect((guarded.echo as { list: unknown[] }).list[0]).toBe('XXXXXXXXXXXX1111');
  });

  it('drops a header whose name holds a value and replaces values in the others', () => {
    const guard = guardOf(['ssn', SSN, SSN_MASK]);
    const headers = runSteps(guard.headers([['x-echo', `ssn=${encodeURIComponent(SSN)}`], [`x-${SSN}`, '1'], ['content-type', 'text/plain']]));
    expect(headers).toEqual([['x-echo', `ssn=${SSN_MASK}`], ['content-type', 'text/plain']]);
  });
});

describe('the flow-back invariant (property)', () => {
  /** Values like the ones tokens hold: digits with delimiters, words, mixed; at least 4 characters. */
  const valueArb = fc.oneof(
    fc.stringMatching(/^[0-9]{4,19}$/),
    fc.stringMatching(/^[0-9]{3}-[0-9]{2}-[0-9]{4}$/),
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ._@-]{3,30}$/),
    fc.string({ unit: 'grapheme', minLength: 4, maxLength: 20 }).filter((s) => s.trim().length >= 4),
  );
  const encodings: Array<(v: string) => string> = [
    (v) => v,
    (v) => v.replace(/[a-z]/g, (c) => c.toUpperCase()),
    (v) => JSON.stringify(v),
    (v) => JSON.stringify({ nested: [v] }),
    (v) => encodeURIComponent(v),
    (v) => b64(v),
    (v) => b64url(v),
    (v) => v.replace(/[\s\-./()_+,]/g, ''),
    (v) => Buffer.from(v).toString('hex'),
  ];
  const noise = fc.string({ maxLength: 12 }).map((s) => s.replace(/[A-Za-z0-9+/=_-]/g, ' '));

  it('no answer carries a value, in any listed encoding, whole or embedded, in keys, values or headers', () => {
    fc.assert(
      fc.property(
        fc.array(valueArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(encodings.length - 1), noise, noise, fc.constantFrom('value', 'key', 'header')), { minLength: 1, maxLength: 8 }),
        (values, placements) => {
          const guard = guardOf(...values.map((value, i): [string, unknown, string] => [`t${i}`, value, REDACTED_VIEW]));
          const raw: Record<string, unknown> = {};
          const headers: Array<[string, string]> = [];
          for (const [k, [which, encoding, before, after, where]] of placements.entries()) {
            const text = `${before}${encodings[encoding](values[which % values.length])}${after}`;
            if (where === 'value') raw[`v${k}`] = text;
            else if (where === 'key') raw[text] = k;
            else headers.push([`x-h${k}`, text]);
          }
          const out = JSON.stringify(runSteps(guard.json(raw))) + JSON.stringify(runSteps(guard.headers(headers)));
          const decodedOut = decodeEverything(out);
          for (const value of values) {
            for (const encode of encodings) {
              const encoded = encode(value);
              if (encoded.length >= 4) expect(out).not.toContain(encoded);
            }
            const bare = value.toLowerCase().replace(/[\s\-./()_+,]/g, '');
            if (bare.length >= 4) expect(decodedOut.toLowerCase().replace(/[\s\-./()_+,]/g, '')).not.toContain(bare);
          }
        },
      ),
      { numRuns: Number(process.env.FLOW_RUNS ?? 300), ...(process.env.FLOW_SEED ? { seed: Number(process.env.FLOW_SEED) } : {}) },
    );
  });
});

/** The answer with every base64 run, escape and percent-encoding undone, as a reader would try. */
const decodeEverything = (text: string): string => {
  let out = text;
  for (let i = 0; i < 3; i++) {
    out = out.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
    out = out.replace(/\\(["\\/])/g, '$1');
    try {
      out = decodeURIComponent(out);
    } catch {
      // a lone % stays
    }
    out = out.replace(/[A-Za-z0-9+/_-]{6,}={0,2}/g, (run) => `${run} ${Buffer.from(run, /[-_]/.test(run) ? 'base64url' : 'base64').toString('latin1')}`);
  }
  return out;
};
