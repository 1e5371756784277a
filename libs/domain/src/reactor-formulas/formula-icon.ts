// The icon rule: a base64 data URL whose bytes really are the PNG or JPEG image it claims to be, at most 1 MiB.
import { base64DecodedLength, decodeBase64 } from '../shared/base64';

export const MAX_ICON_BYTES = 1024 * 1024;

type ImageKind = 'png' | 'jpeg';

const DATA_URL = /^data:image\/(png|jpg|jpeg);base64,/i;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SOI = [0xff, 0xd8];
/** The header checks read at most this many bytes: the PNG signature and IHDR chunk (33), a JPEG's first segment. */
const HEADER_BYTES = 48;
/** Base64 characters that decode to HEADER_BYTES (4 characters per 3 bytes). */
const HEADER_CHARACTERS = (HEADER_BYTES / 3) * 4;

const LABEL: Record<ImageKind, string> = { png: 'a PNG image', jpeg: 'a JPEG image' };

/** What is wrong with an icon data URL, in words a user can act on; null when it is a valid icon. */
export const iconProblem = (icon: string): string | null => {
  const header = DATA_URL.exec(icon);
  if (!header) {
    return /^data:/i.test(icon)
      ? 'icon must be an image/png, image/jpg or image/jpeg data URL.'
      : 'icon must be a base64 data URL such as data:image/png;base64,iVBORw0KGgo…';
  }
  const declared: ImageKind = header[1].toLowerCase() === 'png' ? 'png' : 'jpeg';
  const payload = icon.slice(header[0].length);
  const size = base64DecodedLength(payload);
  if (size === null) return 'icon is not valid base64 after the data:…;base64, prefix.';
  if (size > MAX_ICON_BYTES) {
    return `icon must be at most ${MAX_ICON_BYTES} bytes (1 MiB) once decoded; it is ${size} bytes.`;
  }
  // Only the header is decoded: the image's type is decided by its first bytes, whatever its size.
  const bytes = decodeBase64(payload.slice(0, HEADER_CHARACTERS)) as Uint8Array;
  const actual = sniff(bytes);
  if (actual !== declared) {
    const found = actual ? LABEL[actual] : 'not an image of a supported type';
    return `icon is declared as image/${header[1].toLowerCase()} but its bytes are ${found}.`;
  }
  const valid = actual === 'png' ? hasPngHeader(bytes) : hasJpegHeader(bytes, size);
  return valid ? null : `icon starts like ${LABEL[actual]} but has no valid ${actual === 'png' ? 'IHDR header' : 'marker segment after its start'}.`;
};

const sniff = (bytes: Uint8Array): ImageKind | null => {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'png';
  if (startsWith(bytes, JPEG_SOI)) return 'jpeg';
  return null;
};

/**
 * After the signature a PNG's first chunk is IHDR: length 13, type `IHDR`, a non-zero width and height, a bit depth
 * and colour type PNG allows together, compression and filter method 0, interlace 0 or 1, and a matching CRC.
 */
const hasPngHeader = (bytes: Uint8Array): boolean => {
  if (bytes.length < 33) return false;
  const length = uint32(bytes, 8);
  const type = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
  if (length !== 13 || type !== 'IHDR') return false;
  const width = uint32(bytes, 16);
  const height = uint32(bytes, 20);
  const [depth, colour, compression, filter, interlace] = bytes.subarray(24, 29);
  const depths = PNG_DEPTHS[colour];
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) return false;
  if (!depths || !depths.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return false;
  return crc32(bytes.subarray(12, 29)) === uint32(bytes, 29);
};

/** Bit depths allowed per colour type (PNG specification, table 11.1). */
const PNG_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/**
 * After SOI (FF D8) a JPEG goes on with a marker segment: FF, a marker that carries a length (not a restart marker,
 * SOI, EOI or TEM), then a length of at least 2 that the image is long enough to hold.
 */
const hasJpegHeader = (bytes: Uint8Array, size: number): boolean => {
  if (bytes.length < 6 || bytes[2] !== 0xff) return false;
  const marker = bytes[3];
  const segmentMarker = marker >= 0xc0 && marker <= 0xfe && !(marker >= 0xd0 && marker <= 0xd9);
  const length = (bytes[4] << 8) | bytes[5];
  return segmentMarker && length >= 2 && 4 + length <= size;
};

const startsWith = (bytes: Uint8Array, signature: number[]): boolean =>
  bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);

const uint32 = (bytes: Uint8Array, at: number): number =>
  ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;

/** CRC-32 as PNG chunks use it (ISO 3309, reflected polynomial 0xEDB88320); bitwise, for the 17 bytes of IHDR. */
const crc32 = (bytes: Uint8Array): number => {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
};
