import { imageSizeOfBase64 } from "./image-size.js";
import type { ImageSize } from "./types.js";

/** Token cost per image model family: OpenAI's table of base and per-tile tokens. */
interface TileCost {
  readonly base: number;
  readonly tile: number;
}

// https://platform.openai.com/docs/guides/images-vision#calculating-costs
const GPT_4O: TileCost = { base: 85, tile: 170 };
const TILE_COSTS: readonly [RegExp, TileCost][] = [
  [/^gpt-4o-mini/, { base: 2833, tile: 5667 }],
  [/^gpt-5(?!-(mini|nano))/, { base: 70, tile: 140 }],
  [/^(o1|o3)(?!-mini)/, { base: 75, tile: 150 }],
  [/^computer-use/, { base: 65, tile: 129 }],
];
/** The widest image the tile rule keeps whole (2048×768: 4×2 tiles), for an image of unknown size. */
const WORST_OPENAI: ImageSize = { width: 2048, height: 768 };

/**
 * OpenAI's tile rule: `low` detail is the base cost; otherwise (`high`, and `auto`, which may pick
 * high) the image is scaled to fit 2048×2048, then its shortest side down to 768, and each 512 px
 * tile costs `tile` tokens beyond the base. GPT-4.1 mini/nano and o4-mini meter 32 px patches
 * instead; the tile rule is used for them too (its counts are near or above theirs).
 */
export function openAIImageTokens(model: unknown, detail: unknown, size: ImageSize | undefined): number {
  const name = typeof model === "string" ? model.replace(/^.*\//, "") : "";
  const cost = TILE_COSTS.find(([pattern]) => pattern.test(name))?.[1] ?? GPT_4O;
  if (detail === "low") return cost.base;
  let { width, height } = size ?? WORST_OPENAI;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shortest = Math.min(1, 768 / Math.min(width, height));
  width *= shortest;
  height *= shortest;
  return cost.base + cost.tile * Math.ceil(width / 512) * Math.ceil(height / 512);
}

/** Anthropic resizes an image whose long edge exceeds 1568 px or over ~1.15 megapixels: ~1600 tokens at most. */
const ANTHROPIC_MAX_EDGE = 1568;
const ANTHROPIC_MAX_TOKENS = 1600;

/**
 * Anthropic's rule, `tokens = width × height / 750` after its resizing
 * (https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs).
 */
export function anthropicImageTokens(size: ImageSize | undefined): number {
  if (!size) return ANTHROPIC_MAX_TOKENS;
  const fit = Math.min(1, ANTHROPIC_MAX_EDGE / Math.max(size.width, size.height));
  return Math.min(ANTHROPIC_MAX_TOKENS, Math.ceil((size.width * fit * size.height * fit) / 750));
}

/** The size a data URL's image states, else the configured one (`undefined`: the worst case). */
export function sizeOfImageUrl(url: unknown, configured: ImageSize | undefined): ImageSize | undefined {
  if (typeof url === "string" && url.startsWith("data:")) {
    const comma = url.indexOf(",");
    if (comma > 0 && url.slice(0, comma).endsWith(";base64"))
      return imageSizeOfBase64(url.slice(comma + 1)) ?? configured;
  }
  return configured;
}
