// Icon data URLs for specs: real image headers padded to any size, so size limits can be hit exactly.

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** IHDR of a 16×16 8-bit RGBA image, CRC included (length, type, data, CRC: 25 bytes). */
const PNG_IHDR = [
  0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x08, 0x06, 0x00,
  0x00, 0x00, 0x1f, 0xf3, 0xff, 0x61,
];
/** SOI, then an APP0 JFIF segment of length 16. */
const JPEG_START = [
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
];

const imageBytes = (header: number[], size: number): Uint8Array => {
  const bytes = new Uint8Array(size);
  bytes.set(header.slice(0, size));
  return bytes;
};

const dataUrl = (mediaType: string, bytes: Uint8Array): string =>
  `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;

/** The PNG signature and a valid IHDR chunk, then zeros up to `size` bytes. */
export const pngBytes = (size = 64): Uint8Array => imageBytes([...PNG_SIGNATURE, ...PNG_IHDR], size);
/** SOI and an APP0 segment, then zeros up to `size` bytes. */
export const jpegBytes = (size = 64): Uint8Array => imageBytes(JPEG_START, size);

export const pngIcon = (size = 64, mediaType = 'image/png'): string => dataUrl(mediaType, pngBytes(size));
export const jpegIcon = (size = 64, mediaType = 'image/jpeg'): string => dataUrl(mediaType, jpegBytes(size));
export const iconOf = (mediaType: string, bytes: Uint8Array): string => dataUrl(mediaType, bytes);

/** `bytes` with the byte at `index` replaced. */
export const withByte = (bytes: Uint8Array, index: number, value: number): Uint8Array => {
  const copy = bytes.slice();
  copy[index] = value;
  return copy;
};
