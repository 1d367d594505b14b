/**
 * A fast character-based token count for text, without a tokenizer.
 *
 * BPE tokenizers (OpenAI's o200k/cl100k, Anthropic's) give English prose about 4.3
 * characters per token, code and punctuation fewer, and CJK scripts about 1.6 characters a
 * token. Counting by character class keeps the estimate near all three; callers that need
 * exact counts plug in a tokenizer instead. The weights err high before any usage (the
 * limiter then learns the provider's ratio, see docs/estimates.md): every class counts at
 * least a quarter token a character, as OpenAI's character-based admission estimate and the
 * simulator do, and the default is over o200k (`gpt-tokenizer`) on most text of the corpus
 * `npm run bench:estimates` measures (bench/results/estimates.md).
 */

/** Tokens per character: ASCII letters and spaces (a space joins the word after it); o200k's is about 0.22. */
const WORD_CHAR = 0.25;
/** Tokens per character: ASCII digits (split into groups of at most three). */
const DIGIT_CHAR = 0.5;
/** Tokens per character: ASCII punctuation and symbols (each often a token of its own). */
const SYMBOL_CHAR = 0.65;
/** Tokens per character: CJK ideographs, kana and hangul (o200k: 0.4 to 1.1, traditional Chinese the most). */
const CJK_CHAR = 0.9;
/** Tokens per character: other non-ASCII letters (accented Latin, Cyrillic, Greek...). */
const OTHER_CHAR = 0.3;
/** Tokens per astral character (emoji, rare ideographs), counted once for its surrogate pair. */
const ASTRAL_CHAR = 2;

/** Estimated tokens in `text`, rounded up; 0 for the empty string. */
export function textTokens(text: string): number {
  let tokens = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) tokens += isWordChar(code) ? WORD_CHAR : code >= 48 && code <= 57 ? DIGIT_CHAR : SYMBOL_CHAR;
    else if (code >= 0xd800 && code <= 0xdbff) {
      tokens += ASTRAL_CHAR;
      i++;
    } else tokens += isCjk(code) ? CJK_CHAR : OTHER_CHAR;
  }
  return Math.ceil(tokens);
}

function isWordChar(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 32 || code === 10;
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) || // kana
    (code >= 0x3400 && code <= 0x9fff) || // CJK ideographs
    (code >= 0xac00 && code <= 0xd7af) || // hangul
    (code >= 0xf900 && code <= 0xfaff)
  );
}
