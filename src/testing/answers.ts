/**
 * The seeded answer length of the `index`-th call (0-based, in arrival order,
 * rejected calls included): uniform in 1..maxTokens, a pure function of
 * (seed, index, maxTokens), so a run replays exactly under the same seed.
 */
export function seededAnswerTokens(seed: number, index: number, maxTokens: number): number {
  return 1 + Math.floor(unitFromHash(seed, index) * maxTokens);
}

// Three-letter words joined by spaces: an n-token answer is 4n - 1 characters,
// so it estimates back to exactly n tokens under ceil(chars / 4).
const WORDS = ["sim", "llm", "tok", "bot", "ack", "ray", "sun", "sky"] as const;

/** Deterministic filler text of `tokens` tokens (by the chars / 4 estimate). */
export function answerText(tokens: number): string {
  return answerPieces(tokens, 1).join("");
}

/**
 * The answer text split into at most `maxPieces` consecutive pieces (for
 * streaming deltas); joined they give `answerText(tokens)`. None for 0 tokens.
 */
export function answerPieces(tokens: number, maxPieces: number): string[] {
  const words = Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length] ?? "");
  const perPiece = Math.ceil(tokens / maxPieces);
  const pieces: string[] = [];
  for (let start = 0; start < tokens; start += perPiece) {
    const text = words.slice(start, start + perPiece).join(" ");
    pieces.push(start === 0 ? text : ` ${text}`);
  }
  return pieces;
}

/** A number in [0, 1) from a 32-bit mix (murmur3's finaliser) of seed and index. */
function unitFromHash(seed: number, index: number): number {
  let h = Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul((index | 0) + 0x632be5ab, 0x85ebca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}
