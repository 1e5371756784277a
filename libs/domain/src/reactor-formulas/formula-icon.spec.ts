import { iconOf, jpegBytes, jpegIcon, pngBytes, pngIcon, withByte } from './formula-icon.builders';
import { iconProblem } from './formula-icon';

const MiB = 1024 * 1024;
const bytes = (...values: number[]) => new Uint8Array(values);

describe('iconProblem accepts', () => {
  it.each<[string, string]>([
    ['a PNG: signature and a valid IHDR', pngIcon(33)],
    ['a PNG of exactly 1 MiB', pngIcon(MiB)],
    ['a JPEG: SOI and a complete APP0 segment', jpegIcon(20)],
    ['a JPEG declared as image/jpg', jpegIcon(64, 'image/jpg')],
    ['a JPEG whose first segment is a DQT table', iconOf('image/jpeg', bytes(0xff, 0xd8, 0xff, 0xdb, 0x00, 0x04, 0x00, 0x00))],
    ['a media type in capitals', pngIcon(64, 'IMAGE/PNG')],
  ])('%s', (_title, icon) => {
    expect(iconProblem(icon)).toBeNull();
  });
});

describe('iconProblem rejects', () => {
  const signatureOnly = pngBytes(8);
  it.each<[string, string, RegExp]>([
    ['only the 8-byte PNG signature', iconOf('image/png', signatureOnly), /starts like a PNG image but has no valid IHDR header/],
    ['a PNG cut inside its IHDR', iconOf('image/png', pngBytes(32)), /no valid IHDR header/],
    ['a PNG whose first chunk is not IHDR', iconOf('image/png', withByte(pngBytes(), 12, 0x4a)), /no valid IHDR header/],
    ['a PNG whose IHDR length is not 13', iconOf('image/png', withByte(pngBytes(), 11, 0x0c)), /no valid IHDR header/],
    ['a PNG of width 0', iconOf('image/png', withByte(pngBytes(), 19, 0x00)), /no valid IHDR header/],
    ['a PNG with a bit depth its colour type forbids', iconOf('image/png', withByte(pngBytes(), 24, 0x04)), /no valid IHDR header/],
    ['a PNG with an unknown colour type', iconOf('image/png', withByte(pngBytes(), 25, 0x05)), /no valid IHDR header/],
    ['a PNG whose IHDR CRC does not match', iconOf('image/png', withByte(pngBytes(), 32, 0x00)), /no valid IHDR header/],
    ['only the JPEG SOI', iconOf('image/jpeg', bytes(0xff, 0xd8)), /starts like a JPEG image but has no valid marker segment/],
    ['a JPEG of SOI and the first byte of a marker', iconOf('image/jpeg', bytes(0xff, 0xd8, 0xff)), /no valid marker segment/],
    ['a JPEG whose first segment is longer than the image', iconOf('image/jpeg', jpegBytes(19)), /no valid marker segment/],
    ['a JPEG of SOI then EOI', iconOf('image/jpeg', bytes(0xff, 0xd8, 0xff, 0xd9, 0x00, 0x02)), /no valid marker segment/],
    ['a JPEG of SOI then a restart marker', iconOf('image/jpeg', bytes(0xff, 0xd8, 0xff, 0xd0, 0x00, 0x02)), /no valid marker segment/],
    ['a JPEG segment length below 2', iconOf('image/jpeg', bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0x00)), /no valid marker segment/],
    ['PNG bytes declared as JPEG', iconOf('image/jpeg', pngBytes()), /declared as image\/jpeg but its bytes are a PNG image/],
    ['JPEG bytes declared as PNG', iconOf('image/png', jpegBytes()), /declared as image\/png but its bytes are a JPEG image/],
    ['a payload over 1 MiB', pngIcon(MiB + 1), /at most 1048576 bytes/],
  ])('%s', (_title, icon, problem) => {
    expect(iconProblem(icon)).toMatch(problem);
  });
});
