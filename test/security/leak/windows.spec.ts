// The leak property's search for data in a response (windows.ts) can fail, and fails only on data: it finds a window
// of a token's data in everything the echo formula makes of it, and none in the ids, timestamps, fingerprints, headers
// and fixed texts of an answer that holds no data.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { formatSsn, luhnComplete, secretString } from './arbitraries';
import { ENCODINGS, expectedOutcome } from './echo-formula';
import { secretWindows } from './model';
import { findWindow, maskWindowsOf, searchedTexts, type Response } from './windows';

const CARD = luhnComplete('492938172635465');
const SSN = '457-82-9163';
const STRING = 'zqb7dh3mpw9c';
const OBJECT = { k: 'bq8vz2wmdh4g', j: { inner: 'hd5pq7cvbz3w', n: 42 }, ssn: '623-41-8857' };

const answer = (raw: unknown, headers: Record<string, string> = {}): Response => {
  const body = { tokens: null, raw };
  return { text: JSON.stringify(body), body, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } };
};
/** A reactor's answer: its raw, or the 422 of code that threw. */
const outcomeAnswer = (outcome: { raw: unknown } | { thrown: string }): Response => {
  if ('raw' in outcome) return answer(outcome.raw);
  const body = { type: 'https://httpstatuses.io/422', status: 422, detail: 'The reactor failed; errors.reactor says why.', errors: { reactor: [outcome.thrown] } };
  return { text: JSON.stringify(body), body, headers: { 'content-type': 'application/problem+json' } };
};
const indexOf = (data: unknown) => new Map([...secretWindows(data)].map((w) => [w, 'data']));

describe('the leak property finds a window of the data', () => {
  describe.each(ENCODINGS)('in a reactor answer encoded %s', (encoding) => {
    it.each<[string, unknown]>([
      ['a card number', CARD],
      ['an SSN', SSN],
      ['a string', STRING],
      ['an object', OBJECT],
    ])('%s, directly and through the echo destination', async (_label, data) => {
      for (const via of ['direct', 'echo'] as const) {
        const outcome = await expectedOutcome({ encoding, via, values: { a0: data } });
        expect(findWindow(searchedTexts(outcomeAnswer(outcome)), indexOf(data))).not.toBeNull();
      }
    });
  });

  it('in a header value, and in a piece of five characters only', () => {
    expect(findWindow(searchedTexts(answer({}, { 'x-note': `ends ${SSN.slice(-5)}` })), indexOf(SSN))).not.toBeNull();
    expect(findWindow(searchedTexts(answer({ note: `a ${STRING.slice(3, 8)} b` })), indexOf(STRING))).not.toBeNull();
  });

  it('in upper case, and without delimiters', () => {
    expect(findWindow(searchedTexts(answer({ v: STRING.toUpperCase() })), indexOf(STRING))).not.toBeNull();
    expect(findWindow(searchedTexts(answer({ v: SSN.replace(/-/g, '') })), indexOf(SSN))).not.toBeNull();
  });
});

describe("an evaluated mask's windows", () => {
  const masked = '{"X":"XXXXXXXXXX","X":{"XXXXX":"XXXXXXXXwd","n":0}}';
  const index = new Map(maskWindowsOf(masked).map((w) => [w, 'mask']));

  it('are those within a value that show two characters of data', () => {
    expect(maskWindowsOf(masked)).toEqual(['XXXWD']);
    expect(maskWindowsOf('XXX-XX-6789')).toEqual(['XX-67', 'X-678', '-6789']);
    // One character of data and four X's is in every mask that shows that character there.
    expect(maskWindowsOf('0XXXXXX56')).toEqual(['XXX56']);
    expect(findWindow(searchedTexts(answer({ v: 'XXXXXXwd' })), index)).not.toBeNull();
  });

  it('are not found in JSON that shares their punctuation and key names', () => {
    expect(findWindow(searchedTexts(answer({ status: 'verified', name: 'leak echo' })), index)).toBeNull();
  });
});

describe('the leak property finds nothing in an answer without data', () => {
  const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const fingerprint = fc.string({ unit: fc.constantFrom(...BASE58.split('')), minLength: 43, maxLength: 44 });
  const data = fc.oneof(
    fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 15, maxLength: 15 }).map(luhnComplete),
    fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 9, maxLength: 9 }).map((d) => formatSsn(d, true)),
    secretString,
    fc.record({ k: secretString, ssn: fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 9, maxLength: 9 }) }),
  );

  it('ids, timestamps, fingerprints, numbers, field names and messages', () => {
    fc.assert(
      fc.property(data, fingerprint, fc.nat({ max: 999_999 }), fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }), (secret, print, length, when) => {
        const view = {
          id: randomUUID(),
          type: 'social_security_number',
          tenant_id: randomUUID(),
          data: 'XXX-XX-XXXX',
          fingerprint: print,
          fingerprint_expression: "{{ data | remove: '-' }}",
          mask: '{{ data | reveal_last: 4 }}',
          containers: ['/pii/high/', '/general/'],
          metadata: { m1: 'ESTONIAN' },
          search_indexes: ['{{ data }}', '{{ data | last4 }}'],
          created_by: randomUUID(),
          created_at: when.toISOString(),
          pagination: { total_items: length % 1000, page_number: 1, page_size: 100, total_pages: 1 },
          problem: {
            type: 'https://httpstatuses.io/400',
            title: 'One or more validation errors occurred.',
            detail: 'The detokenization expression refers to a token that was not found.',
            errors: { 'outer[0].x': ['The detokenization expression at character 10 expects }} (at character 48).'] },
          },
        };
        const response: Response = {
          text: JSON.stringify(view),
          body: view,
          headers: { 'x-request-id': randomUUID(), 'content-length': String(length), date: when.toUTCString(), connection: 'close' },
        };
        expect(findWindow(searchedTexts(response), indexOf(secret))).toBeNull();
      }),
      { numRuns: 2_000 },
    );
  });
});
