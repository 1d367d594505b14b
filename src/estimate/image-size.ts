import type { ImageSize } from "./types.js";

/** Base64 characters decoded to find a header: 128 KiB of bytes, past a JPEG's EXIF block. */
const HEADER_CHARS = 174_764;

/**
 * The size an image's header states, from its base64 data (PNG, GIF, JPEG, WebP), or `undefined`
 * when the format is another or the data is malformed.
 */
export function imageSizeOfBase64(data: string): ImageSize | undefined {
  // Whole groups of four only: the cut may end inside one.
  const prefix = data.slice(0, HEADER_CHARS).replace(/[^A-Za-z0-9+/]/g, "");
  const bytes = atob(prefix.slice(0, prefix.length - (prefix.length % 4)));
  const at = (i: number): number => bytes.charCodeAt(i);
  const be16 = (i: number): number => (at(i) << 8) | at(i + 1);
  const le16 = (i: number): number => at(i) | (at(i + 1) << 8);
  const le24 = (i: number): number => le16(i) | (at(i + 2) << 16);
  let size: ImageSize | undefined;
  if (bytes.startsWith("\x89PNG") && bytes.length >= 24)
    size = { width: be16(16) * 65536 + be16(18), height: be16(20) * 65536 + be16(22) };
  else if (bytes.startsWith("GIF8") && bytes.length >= 10) size = { width: le16(6), height: le16(8) };
  else if (bytes.startsWith("RIFF") && bytes.slice(8, 12) === "WEBP") size = webpSize(bytes, at, le16, le24);
  else if (at(0) === 0xff && at(1) === 0xd8) size = jpegSize(bytes, at, be16);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

function webpSize(
  bytes: string,
  at: (i: number) => number,
  le16: (i: number) => number,
  le24: (i: number) => number,
): ImageSize | undefined {
  if (bytes.length < 30) return undefined;
  switch (bytes.slice(12, 16)) {
    case "VP8X":
      return { width: le24(24) + 1, height: le24(27) + 1 };
    case "VP8 ":
      return { width: le16(26) & 0x3fff, height: le16(28) & 0x3fff };
    case "VP8L": {
      const bits = at(21) | (at(22) << 8) | (at(23) << 16) | (at(24) << 24);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    default:
      return undefined;
  }
}

/** Walks the JPEG's segments to the first start-of-frame marker, which holds the size. */
function jpegSize(bytes: string, at: (i: number) => number, be16: (i: number) => number): ImageSize | undefined {
  let i = 2;
  while (i + 9 < bytes.length) {
    if (at(i) !== 0xff) return undefined;
    const marker = at(i + 1);
    // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { width: be16(i + 7), height: be16(i + 5) };
    i += 2 + be16(i + 2);
  }
  return undefined;
}
