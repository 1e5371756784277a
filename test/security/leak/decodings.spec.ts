// The leak property's search through a destination's answer (decodings.ts, windows.ts thorough) can fail, and fails
// only on data: it finds a window of a token's data in every encoding the proxy destination writes (proxy-echo.ts,
// the known gaps' too), in its body and headers, and none in an answer of ids and fixed texts.
import { randomUUID } from 'node:crypto';
import { luhnComplete } from './arbitraries';
import { secretSources, secretWindows } from './model';
import { BODY_ENCODINGS, echoAnswerOf, gapEncodings } from './proxy-echo';
import { ALL_DIGITS, DIGIT_WINDOW, digitWindowsOf, findWindow, searchedTexts, type Response } from './windows';

const CARD = luhnComplete('492938172635465');
const SSN = '457-82-9163';
const OBJECT = { k: 'bq8vz2wmdh4g', ssn: '623-41-8857' };
const ALL_GAPS = gapEncodings(['proxy-hex-outside', 'proxy-punctuation']);

/** As the invariant reads a destination's answer: windows of data, runs of digits DIGIT_WINDOW long. */
const foundIn = (texts: string[], data: unknown) =>
  findWindow(texts, new Map([...secretWindows(data)].filter((w) => !ALL_DIGITS.test(w)).map((w) => [w, 'data']))) ??
  findWindow(texts, new Map(secretSources(data).flatMap(digitWindowsOf).map((w) => [w, 'data'])), DIGIT_WINDOW);

/** The destination's answer to a request whose body and X-Leak-0 header held `value`, as the caller would get it. */
const answerTo = (value: string, encodings: readonly string[], media: 'json' | 'text' = 'json'): Response => {
  const request = { method: 'POST', path: '/dest/echo', headers: { 'x-leak-0': value }, body: JSON.stringify({ lit: 'own', v0: value }) };
  const { headers, body } = echoAnswerOf(request, { status: 200, media, body: encodings as never, headers: encodings as never, call: '1' });
  const text = body.toString('utf8');
  let parsed: unknown = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // text media
  }
  return { text, body: parsed, headers };
};

describe('the leak property reads a destination\'s answer', () => {
  it.each([...BODY_ENCODINGS, ...ALL_GAPS].flatMap((encoding) => [CARD, SSN, JSON.stringify(OBJECT)].map((value) => [encoding, value] as const)))(
    'finds the data in %s of %s, in the body and the headers',
    (encoding, value) => {
      for (const media of ['json', 'text'] as const) {
        const answer = answerTo(value, [encoding], media);
        expect(foundIn(searchedTexts(answer, true), value === JSON.stringify(OBJECT) ? OBJECT : value)).not.toBeNull();
        const headersOnly: Response = { text: '', body: {}, headers: answer.headers };
        if (Object.keys(answer.headers).some((name) => name.startsWith('x-echo-'))) {
          expect(foundIn(searchedTexts(headersOnly, true), value === JSON.stringify(OBJECT) ? OBJECT : value)).not.toBeNull();
        }
      }
    },
  );

  it('finds nothing in an answer of ids and fixed words, decoded every way', () => {
    const ids = Array.from({ length: 50 }, () => randomUUID());
    const request = { method: 'GET', path: `/dest/echo/${ids.join('/')}`, headers: { 'x-leak-0': ids.join(',') }, body: JSON.stringify({ ids }) };
    const { headers, body } = echoAnswerOf(request, { status: 200, media: 'json', body: [...BODY_ENCODINGS, ...ALL_GAPS], headers: BODY_ENCODINGS.slice(0, 6), call: '1' });
    const text = body.toString('utf8');
    const texts = searchedTexts({ text, body: JSON.parse(text), headers: { ...headers, date: new Date().toUTCString() } }, true);
    for (const data of [CARD, SSN, OBJECT]) expect(foundIn(texts, data)).toBeNull();
  });
});
