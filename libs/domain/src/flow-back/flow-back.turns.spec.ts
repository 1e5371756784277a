// Checking an answer never holds the event loop long: every pass over a text is linear and yields between chunks, so
// a large answer is checked in short steps (driven by inTurns, a turn of the event loop between two), whatever it holds.
import type { Steps } from '../shared/steps';
import { runSteps } from '../shared/steps';
import { FlowBackGuard } from './flow-back.guard';
import { REDACTED_VIEW } from './flow-back.secrets';

const CARD = '4111111111111111';
const MIB = 1024 * 1024;

/**
 * The promise is 50 ms a request; a step here takes a few. The bound leaves room for a loaded machine and still fails
 * by far without steps: one pass over 1 MiB of `&` took seconds.
 */
const MAX_STEP_MS = 150;

const guard = () => FlowBackGuard.of([{ tokenId: 'card', value: CARD, replacement: REDACTED_VIEW }]);

/**
 * What the steps return, and the longest any of them ran: the shortest such of up to three runs, so that a pause of
 * the machine (a collection, another process) in one run is not taken for the code's own. A pass that is slow is slow
 * every run.
 */
const timed = <T>(steps: () => Steps<T>): { value: T; longestMs: number } => {
  let best = { value: undefined as T, longestMs: Infinity };
  for (let run = 0; run < 3 && best.longestMs >= MAX_STEP_MS; run++) {
    const checking = steps();
    let longestMs = 0;
    for (;;) {
      const started = performance.now();
      const step = checking.next();
      longestMs = Math.max(longestMs, performance.now() - started);
      if (step.done) {
        if (longestMs < best.longestMs) best = { value: step.value, longestMs };
        break;
      }
    }
  }
  return best;
};

const repeated = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

describe('FlowBackGuard on large answers', () => {
  it.each([
    ['&'],
    ['\\'],
    ['%'],
    ['x'],
    ['A'],
    ['&#'],
    ['&#x34;'],
    ['%4'],
    ['%34'],
    ['\\u'],
    ['\\\\u0034'],
    ['&amp'],
    ['ab&cd%ef\\gh '],
    ['QUFBQUFB\r\n'],
    ['İΣ '],
    ['\u0000a'],
  ])('checks 1 MiB of %j in steps, none longer than the bound', (unit) => {
    // Warmed up on a smaller answer: the first run of a pass also compiles it.
    runSteps(guard().bytes(Buffer.from(repeated(unit, 64 * 1024))));
    const body = Buffer.from(repeated(unit, MIB));
    const { value, longestMs } = timed(() => guard().bytes(body));
    expect(longestMs).toBeLessThan(MAX_STEP_MS);
    expect(Buffer.from(value).equals(body)).toBe(true);
  });

  it('checks a JSON answer of one 1 MiB string in steps, none longer than the bound', () => {
    const { longestMs } = timed(() => guard().json({ echo: repeated('&', MIB) }));
    expect(longestMs).toBeLessThan(MAX_STEP_MS);
  });

  it.each<[string, (value: string) => string]>([
    ['as HTML character references', (v) => [...v].map((c) => `&#${c.charCodeAt(0)};`).join('')],
    ['JSON-escaped', (v) => [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['percent-encoded', (v) => [...v].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
    ['in base64', (v) => Buffer.from(v).toString('base64')],
  ])('still finds a value %s after 1 MiB of escape characters that start no escape', (title, encode) => {
    const view = title === 'in base64' ? encode(REDACTED_VIEW) : REDACTED_VIEW;
    for (const unit of ['&', '\\', '%']) {
      const noise = repeated(unit, MIB);
      expect(runSteps(guard().text(`${noise} ${encode(CARD)} end`))).toBe(`${noise} ${view} end`);
    }
  });
});

describe('HTML character references', () => {
  it.each<[string, (value: string) => string]>([
    ['with leading zeros', (v) => [...v].map((c) => `&#${String(c.charCodeAt(0)).padStart(12, '0')};`).join('')],
    ['in hex with leading zeros', (v) => [...v].map((c) => `&#x${c.charCodeAt(0).toString(16).padStart(12, '0')};`).join('')],
    ['without their `;`', (v) => [...v].map((c) => `&#${c.charCodeAt(0)}`).join('')],
  ])('are read %s, as browsers read them', (_title, encode) => {
    expect(runSteps(guard().text(`card ${encode(CARD)} end`))).toBe(`card ${REDACTED_VIEW} end`);
  });

  it('are named within a bounded stretch: an `&` far from any `;` starts none', () => {
    const answer = `&${'a'.repeat(40)};&quot;${CARD}&quot;`;
    expect(runSteps(guard().text(answer))).toBe(`&${'a'.repeat(40)};&quot;${REDACTED_VIEW}&quot;`);
    expect(runSteps(guard().text(`&constructor;${CARD}`))).toBe(`&constructor;${REDACTED_VIEW}`);
  });
});
