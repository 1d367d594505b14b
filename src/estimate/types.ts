/**
 * The request shapes {@link estimateRequest} reads.
 * @inline
 */
export type Endpoint =
  /** OpenAI `POST /v1/chat/completions`, and the compatible APIs (Groq, OpenRouter, Together, Mistral, Azure). */
  | "chat.completions"
  /** OpenAI `POST /v1/responses`. */
  | "responses"
  /** OpenAI `POST /v1/embeddings`. */
  | "embeddings"
  /** Anthropic `POST /v1/messages`. */
  | "messages";

/**
 * Counts the tokens of a text, e.g. `countTokens` of `gpt-tokenizer`.
 * @inline
 */
export type Tokenizer = (text: string) => number;

/**
 * An image's size in pixels.
 * @inline
 */
export interface ImageSize {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/** Options of {@link estimateRequest}. */
export interface EstimateRequestOptions {
  /**
   * The shape of the body. `limiter.fetch()` knows it from the URL.
   * @default detected from the body: a top-level `system` or Anthropic content blocks mean `"messages"`,
   * other `messages` `"chat.completions"`, `input` with an embedding model (its name contains `embed`)
   * `"embeddings"`, other `input` `"responses"`
   */
  endpoint?: Endpoint;
  /**
   * Counts the tokens of each text (message, system prompt, tool schema). Plug in a real tokenizer
   * for exact counts, e.g. `countTokens` from the optional peer `gpt-tokenizer`.
   * @default a character-class count, no tokenizer (see docs/integrations.md for its measured error)
   */
  tokenizer?: Tokenizer;
  /**
   * The output reserved when the body names no output cap (`max_completion_tokens`, `max_tokens`,
   * `max_output_tokens`). Anthropic requires `max_tokens`, so there it applies only to a body without one.
   * @default 4096
   */
  defaultMaxTokens?: number;
  /**
   * The size assumed for an image whose size the request does not show (a URL, or data in a format
   * whose header is not read: PNG, JPEG, GIF and WebP are read).
   * @default `undefined`: the size the provider's rule charges most for (OpenAI: 2048×768 at high
   * detail, 1445 tokens; Anthropic: ~1.15 megapixels, 1600 tokens), so an image is never under-counted
   */
  imageSize?: ImageSize;
}

/** What a request is expected to cost: prompt tokens, and the output reserved for its answer. */
export interface RequestEstimate {
  /** Prompt tokens: messages, system prompt, tool schemas, images. */
  input: number;
  /** The output reservation: the body's output cap times the choices asked for, or `defaultMaxTokens`. */
  output: number;
}

/** The options resolved: what the per-endpoint counters need. */
export interface Counting {
  readonly text: Tokenizer;
  readonly defaultMaxTokens: number;
  readonly imageSize: ImageSize | undefined;
}
