// A body in UTF-16 (as .NET and Java write XML and SOAP by default) holds a value as `4\0 1\0 …`, which neither the
// UTF-8 nor the Latin-1 reading of its bytes matches: `bytes` reads it as UTF-16 too, little- or big-endian, and
// writes it back in the same byte order when it replaced something.
import { runSteps } from '../shared/steps';
import { FlowBackGuard } from './flow-back.guard';
import { REDACTED_VIEW } from './flow-back.secrets';

const CARD = '4111111111111111';
const CARD_MASK = 'XXXXXXXXXXXX1111';
const NAME = 'Zébra Quartz';

const guard = () =>
  FlowBackGuard.of([
    { tokenId: 'card', value: CARD, replacement: CARD_MASK },
    { tokenId: 'name', value: NAME, replacement: REDACTED_VIEW },
  ]);

const LE_BOM = Buffer.from([0xff, 0xfe]);
const BE_BOM = Buffer.from([0xfe, 0xff]);
const utf16le = (text: string) => Buffer.from(text, 'utf16le');
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
const fromUtf16be = (bytes: Buffer) => Buffer.from(bytes).swap16().toString('utf16le');

const xml = (inner: string) => `<?xml version="1.0" encoding="utf-16"?><Echo><card>${inner}</card></Echo>`;

describe('FlowBackGuard.bytes on UTF-16', () => {
  it.each<[string, (text: string) => Buffer, (bytes: Buffer) => string]>([
    ['little-endian with its byte order mark', (t) => Buffer.concat([LE_BOM, utf16le(t)]), (b) => b.subarray(2).toString('utf16le')],
    ['big-endian with its byte order mark', (t) => Buffer.concat([BE_BOM, utf16be(t)]), (b) => fromUtf16be(b.subarray(2))],
    ['little-endian without a byte order mark', utf16le, (b) => b.toString('utf16le')],
    ['big-endian without a byte order mark', utf16be, fromUtf16be],
  ])('replaces a value in %s, written back in the same encoding', (title, encode, decode) => {
    const guarded = Buffer.from(runSteps(guard().bytes(encode(xml(CARD)))));
    if (title.includes('byte order mark') && !title.includes('without')) expect(guarded.subarray(0, 2)).toEqual(encode('').subarray(0, 2));
    expect(decode(guarded)).toBe(xml(CARD_MASK));
  });

  it.each<[string, (value: string) => string]>([
    ['in upper case', (v) => v.toUpperCase()],
    ['with spaces put in', (v) => v.replace(/(\d{4})/g, '$1 ')],
    ['JSON-escaped', (v) => [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['URL-encoded', (v) => encodeURIComponent(v)],
    ['in base64', (v) => Buffer.from(v).toString('base64')],
    ['in hex', (v) => Buffer.from(v).toString('hex')],
  ])('finds a value %s in UTF-16 as in any text', (_title, encode) => {
    for (const value of [CARD, NAME]) {
      const guarded = Buffer.from(runSteps(guard().bytes(Buffer.concat([LE_BOM, utf16le(xml(encode(value)))]))));
      const text = guarded.subarray(2).toString('utf16le');
      expect(text.startsWith('<?xml')).toBe(true);
      expect(text).not.toContain(encode(value));
    }
  });

  it('finds a value written in Latin script however much text in other scripts surrounds it, with no byte order mark', () => {
    const body = utf16le(`${'漢字かな'.repeat(5000)}${NAME}${'한국어'.repeat(5000)}`);
    const text = Buffer.from(runSteps(guard().bytes(body))).toString('utf16le');
    expect(text).toBe(`${'漢字かな'.repeat(5000)}${REDACTED_VIEW}${'한국어'.repeat(5000)}`);
  });

  it('finds a value in UTF-16 that starts at an odd offset (a part of a larger body), up to its first and last character', () => {
    const head = Buffer.from('--b\r\ncontent-type: text/plain; charset=utf-16\r\n\r\n!');
    for (const encode of [utf16le, utf16be]) {
      for (const text of [`card ${CARD} end`, CARD, 'Zebra']) {
        const body = Buffer.concat([head, encode(text), Buffer.from('\r\n--b--')]);
        const guarded = Buffer.from(runSteps(guard().bytes(body)));
        expect(guarded.subarray(0, head.length).equals(head)).toBe(true);
        const part = guarded.subarray(head.length, guarded.length - 7);
        expect(encode === utf16le ? part.toString('utf16le') : fromUtf16be(part)).toBe(text.replace(CARD, CARD_MASK));
      }
    }
  });

  it('finds a value of any script when the byte order mark says UTF-16', () => {
    const value = '山田太郎さん';
    const cjkGuard = FlowBackGuard.of([{ tokenId: 'name', value, replacement: REDACTED_VIEW }]);
    for (const [bom, encode] of [[LE_BOM, utf16le], [BE_BOM, utf16be]] as const) {
      const guarded = Buffer.from(runSteps(cjkGuard.bytes(Buffer.concat([bom, encode(`<n>${value}</n>`)]))));
      expect(guarded.equals(Buffer.concat([bom, encode(`<n>${REDACTED_VIEW}</n>`)]))).toBe(true);
    }
    expect(cjkGuard.replacedTokenIds()).toEqual(['name']);
  });

  it('keeps every other byte as it was: a lone surrogate, an odd last byte', () => {
    const body = Buffer.concat([LE_BOM, utf16le('a\ud800b '), utf16le(CARD), Buffer.from([0x41])]);
    const guarded = Buffer.from(runSteps(guard().bytes(body)));
    expect(guarded.equals(Buffer.concat([LE_BOM, utf16le('a\ud800b '), utf16le(CARD_MASK), Buffer.from([0x41])]))).toBe(true);
  });

  it('returns the very bytes when the UTF-16 reading holds no value, and records nothing', () => {
    const g = guard();
    for (const body of [Buffer.concat([LE_BOM, utf16le(xml('4111'))]), utf16be(xml('nothing here')), Buffer.from([0, 1, 2, 3, 0, 0, 0, 0, 255, 254])]) {
      expect(runSteps(g.bytes(body))).toBe(body);
    }
    expect(g.replacedTokenIds()).toEqual([]);
  });
});
