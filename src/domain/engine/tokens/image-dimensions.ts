/** Width and height in pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/** Base64 characters decoded at most while looking for a JPEG frame header. */
const MAX_PREFIX_CHARS = 262_144;

/** PNG: IHDR width/height, big-endian, at bytes 16–23. */
function pngSize(bytes: Buffer): ImageSize | undefined {
  if (bytes.length < 24 || bytes.readUInt32BE(0) !== 0x89504e47) return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** GIF: logical screen size, little-endian, at bytes 6–9. */
function gifSize(bytes: Buffer): ImageSize | undefined {
  if (bytes.length < 10 || bytes.toString('latin1', 0, 3) !== 'GIF') return undefined;
  return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
}

/** WebP: VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk. */
function webpSize(bytes: Buffer): ImageSize | undefined {
  if (bytes.length < 30 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP')
    return undefined;
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return undefined;
}

/** JPEG: walk the segments to the first SOFn frame header. */
function jpegSize(bytes: Buffer): ImageSize | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1]!;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  return undefined;
}

/** Size of a base64 `data:` URL image (PNG, JPEG, GIF, WebP) from its header; undefined otherwise. */
export function imageDimensions(url: string): ImageSize | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0 || !url.slice(0, comma).includes(';base64')) return undefined;
  const end = Math.min(url.length, comma + 1 + MAX_PREFIX_CHARS);
  const bytes = Buffer.from(url.slice(comma + 1, end - ((end - comma - 1) % 4)), 'base64');
  const size = pngSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes) ?? jpegSize(bytes);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}
