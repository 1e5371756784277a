// The icon rule: a base64 data URL whose bytes really are the PNG or JPEG image it claims to be, at most 1 MiB.
import { base64DecodedLength, decodeBase64 } from './base64';

export const MAX_ICON_BYTES = 1024 * 1024;

type ImageKind = 'png' | 'jpeg';

const DATA_URL = /^data:image\/(png|jpg|jpeg);base64,/i;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

const LABEL: Record<ImageKind, string> = { png: 'a PNG image', jpeg: 'a JPEG image' };

/** What is wrong with an icon data URL, in words a user can act on; null when it is a valid icon. */
export const iconProblem = (icon: string): string | null => {
  const header = DATA_URL.exec(icon);
  if (!header) {
    const mediaType = /^data:([^;,]*)/i.exec(icon)?.[1];
    return mediaType
      ? `icon must be an image/png, image/jpg or image/jpeg data URL, not ${mediaType}.`
      : 'icon must be a base64 data URL such as data:image/png;base64,iVBORw0KGgo…';
  }
  const declared: ImageKind = header[1].toLowerCase() === 'png' ? 'png' : 'jpeg';
  const payload = icon.slice(header[0].length);
  const size = base64DecodedLength(payload);
  if (size === null) return 'icon is not valid base64 after the data:…;base64, prefix.';
  if (size > MAX_ICON_BYTES) {
    return `icon must be at most ${MAX_ICON_BYTES} bytes (1 MiB) once decoded; it is ${size} bytes.`;
  }
  const bytes = decodeBase64(payload) as Uint8Array;
  const actual = sniff(bytes);
  if (actual === declared) return null;
  const found = actual ? LABEL[actual] : 'not an image of a supported type';
  return `icon is declared as image/${header[1].toLowerCase()} but its bytes are ${found}.`;
};

const sniff = (bytes: Uint8Array): ImageKind | null => {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'png';
  if (startsWith(bytes, JPEG_SIGNATURE)) return 'jpeg';
  return null;
};

const startsWith = (bytes: Uint8Array, signature: number[]): boolean =>
  bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);
