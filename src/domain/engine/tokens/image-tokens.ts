import { imageDimensions, type ImageSize } from './image-dimensions.js';
import { isRecord } from '../../../core/messages/chat-message.js';

/** Size assumed for images whose dimensions are unknown (remote URLs): 1024×1024 → 765 tokens. */
export const DEFAULT_IMAGE_SIZE: ImageSize = { width: 1024, height: 1024 };

/** Tokens of a `detail: low` image, and the base cost of every image. */
export const LOW_DETAIL_TOKENS = 85;

/** OpenAI's tile formula: fit in 2048×2048, shortest side down to 768, then 85 + 170 per 512-px tile. */
export function tileTokens(size: ImageSize): number {
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shrink = Math.min(1, 768 / Math.min(width, height));
  width *= shrink;
  height *= shrink;
  return LOW_DETAIL_TOKENS + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}

/** Tokens of one `image_url` content part. */
export function imageTokens(imageUrl: unknown): number {
  const part: Record<string, unknown> = isRecord(imageUrl) ? imageUrl : { url: imageUrl };
  if (part.detail === 'low') return LOW_DETAIL_TOKENS;
  const url = typeof part.url === 'string' ? part.url : '';
  return tileTokens(imageDimensions(url) ?? DEFAULT_IMAGE_SIZE);
}
