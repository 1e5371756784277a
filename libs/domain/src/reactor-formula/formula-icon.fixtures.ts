// Icon data URLs for specs: real image signatures padded to any size, so size limits can be hit exactly.

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_START = [0xff, 0xd8, 0xff, 0xe0];

const imageBytes = (signature: number[], size: number): Uint8Array => {
  const bytes = new Uint8Array(size);
  bytes.set(signature.slice(0, size));
  return bytes;
};

const dataUrl = (mediaType: string, bytes: Uint8Array): string =>
  `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;

export const pngBytes = (size = 64): Uint8Array => imageBytes(PNG_SIGNATURE, size);
export const jpegBytes = (size = 64): Uint8Array => imageBytes(JPEG_START, size);

export const pngIcon = (size = 64, mediaType = 'image/png'): string => dataUrl(mediaType, pngBytes(size));
export const jpegIcon = (size = 64, mediaType = 'image/jpeg'): string => dataUrl(mediaType, jpegBytes(size));
export const iconOf = (mediaType: string, bytes: Uint8Array): string => dataUrl(mediaType, bytes);
