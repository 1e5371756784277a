// Base64 as MIME and PEM write it (RFC 2045, the `base64` tool, Python's encodebytes, Java's MIME encoder) breaks its
// lines every 76 or 64 characters; a value whose encoding straddles a break is in neither line. A run of base64 is
// read across its line breaks, and encoded again in the same lines when it held a value.
import { runSteps } from '../shared/steps';
import { FlowBackGuard } from './flow-back.guard';
import { REDACTED_VIEW } from './flow-back.secrets';

const CARD = '4111111111111111';
const CARD_MASK = 'XXXXXXXXXXXX1111';

const guard = () => FlowBackGuard.of([{ tokenId: 'card', value: CARD, replacement: CARD_MASK }]);

/** `text` in base64, `width` characters a line, `lineBreak` after each full line. */
const wrapped = (text: string, width: number, lineBreak: string, url = false) =>
  (Buffer.from(text).toString(url ? 'base64url' : 'base64').match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(lineBreak);

const unwrapped = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'base64').toString('latin1');

describe('FlowBackGuard on base64 wrapped in lines', () => {
  it.each([
    ['MIME, 76 characters and CRLF', 76, '\r\n'],
    ['PEM, 64 characters and LF', 64, '\n'],
    ['indented lines', 64, '\n    '],
    ['spaces before the break', 76, '  \r\n'],
  ])('replaces a value wherever the breaks fall (%s), in the same lines', (_title, width, lineBreak) => {
    for (let padding = 0; padding < 80; padding++) {
      const plain = `${'x'.repeat(padding)}card=${CARD};${'y'.repeat(100)}`;
      const answer = `before:\n${wrapped(plain, width, lineBreak)}\nafter`;
      const guarded = runSteps(guard().text(answer));
      const expected = `before:\n${wrapped(plain.replace(CARD, CARD_MASK), width, lineBreak)}\nafter`;
      expect(guarded).toBe(expected);
    }
  });

  it('replaces a value in base64url wrapped in lines', () => {
    const plain = `${'?'.repeat(70)}card=${CARD}`;
    const guarded = runSteps(guard().text(wrapped(plain, 76, '\n', true)));
    expect(Buffer.from(guarded.replace(/\s/g, ''), 'base64url').toString('latin1')).toBe(plain.replace(CARD, CARD_MASK));
  });

  it('replaces a value in a PEM block, its armour kept', () => {
    const body = wrapped(`${'\u0001'.repeat(61)}${CARD}${'\u0002'.repeat(40)}`, 64, '\n');
    const pem = `-----BEGIN DATA-----\n${body}\n-----END DATA-----\n`;
    const guarded = runSteps(guard().text(pem));
    expect(guarded.startsWith('-----BEGIN DATA-----\n')).toBe(true);
    expect(guarded.endsWith('\n-----END DATA-----\n')).toBe(true);
    expect(unwrapped(guarded.split('\n').slice(1, -2).join(''))).not.toContain(CARD);
    expect(guarded.split('\n').slice(1, -3).every((line) => line.length === 64)).toBe(true);
  });

  it('replaces a value in wrapped base64 written inside a JSON string, or nested in wrapped base64', () => {
    const plain = `${'x'.repeat(50)}${CARD}`;
    const json = JSON.stringify({ file: wrapped(plain, 76, '\r\n') });
    expect(unwrapped(JSON.parse(runSteps(guard().text(json))).file)).not.toContain(CARD);
    const nested = wrapped(wrapped(plain, 76, '\r\n'), 76, '\r\n');
    expect(unwrapped(unwrapped(runSteps(guard().text(nested))))).not.toContain(CARD);
  });

  it('keeps runs a blank line or other text separates, and lines that hold no value, as they were', () => {
    const other = wrapped('z'.repeat(120), 76, '\n');
    const answer = `${other}\n\n${wrapped(`${'x'.repeat(50)}${CARD}`, 76, '\n')}\n\nhello\nworld\n${other}`;
    const guarded = runSteps(guard().text(answer));
    expect(guarded).toBe(`${other}\n\n${wrapped(`${'x'.repeat(50)}${CARD_MASK}`, 76, '\n')}\n\nhello\nworld\n${other}`);
  });

  it('reads a body of wrapped base64 in bytes too', () => {
    const body = Buffer.from(`${wrapped(`${'x'.repeat(50)}${CARD}`, 76, '\r\n')}\r\n`);
    const guarded = Buffer.from(runSteps(guard().bytes(body))).toString('latin1');
    expect(unwrapped(guarded)).toBe(`${'x'.repeat(50)}${CARD_MASK}`);
    expect(guarded.split('\r\n')[0]).toHaveLength(76);
  });

  it("puts the caller's view over the characters of a value's encoding that straddles a break of a run it cannot decode whole", () => {
    const guardRedacted = FlowBackGuard.of([{ tokenId: 'card', value: CARD, replacement: REDACTED_VIEW }]);
    for (const prefix of ['q', 'qq', 'qqq']) {
      // Characters before the run: it no longer decodes whole, yet the value's encoding is in it, across a break.
      const answer = `${prefix}${wrapped(`${'x'.repeat(50)}${CARD}${'y'.repeat(30)}`, 76, '\n')}`;
      const guarded = runSteps(guardRedacted.text(answer));
      expect(guarded).toContain(Buffer.from(REDACTED_VIEW).toString('base64').replace(/=+$/, ''));
      for (let shift = 0; shift < 4; shift++) expect(unwrapped(guarded.replace(/\s/g, '').slice(shift))).not.toMatch(/1111|4111/);
      expect(guarded.startsWith(`${prefix}eHh4eHh4`)).toBe(true);
      expect(guarded.endsWith('eXl5eXl5')).toBe(true);
    }
  });
});
