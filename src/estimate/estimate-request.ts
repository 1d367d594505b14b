import { messagesEstimate } from "./anthropic.js";
import { isRecord } from "./count.js";
import { endpointOfBody } from "./endpoint.js";
import { chatCompletionsEstimate, embeddingsEstimate, responsesEstimate } from "./openai.js";
import { textTokens } from "./text.js";
import type { Counting, Endpoint, EstimateRequestOptions, ImageSize, RequestEstimate } from "./types.js";

const ESTIMATORS: Readonly<Record<Endpoint, (body: Record<string, unknown>, counting: Counting) => RequestEstimate>> = {
  "chat.completions": chatCompletionsEstimate,
  responses: responsesEstimate,
  embeddings: embeddingsEstimate,
  messages: messagesEstimate,
};

/**
 * What a request body will cost at admission: its prompt tokens (messages, system prompt, tool
 * schemas, images by the provider's rule) as `input`, and the output its cap reserves as `output`.
 * Pass the result to `acquire` or `run`. Throws `TypeError` on a body that is not a JSON object or
 * on bad options.
 *
 * @example
 * ```ts
 * import { Limiter, estimateRequest } from "llm-limiter";
 *
 * const limiter = new Limiter({ itpm: 400_000, otpm: 80_000 });
 * const body = { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "Hello" }] };
 * const reservation = await limiter.acquire(estimateRequest(body, { endpoint: "messages" }));
 * reservation.release();
 * ```
 */
export function estimateRequest(body: unknown, options: EstimateRequestOptions = {}): RequestEstimate {
  if (!isRecord(body)) throw new TypeError("estimateRequest(): body must be a JSON object (the parsed request body)");
  const counting = countingOf(options);
  const endpoint = options.endpoint ?? endpointOfBody(body);
  if (!Object.hasOwn(ESTIMATORS, endpoint))
    throw new TypeError(`estimateRequest(): unknown endpoint ${JSON.stringify(endpoint)}`);
  return estimateBody(body, endpoint, counting);
}

/** The estimate of a body already known to be an object, on resolved options. */
export function estimateBody(body: Record<string, unknown>, endpoint: Endpoint, counting: Counting): RequestEstimate {
  const { input, output } = ESTIMATORS[endpoint](body, counting);
  if (!Number.isFinite(input) || input < 0)
    throw new TypeError(`estimateRequest(): the tokenizer must return finite counts >= 0, got ${input} in all`);
  // A cap of 1e308 tokens times n choices is Infinity: a finite count, too large for any budget, says more.
  return { input: Math.ceil(input), output: Math.min(Math.ceil(output), Number.MAX_SAFE_INTEGER) };
}

/** Checks the options (a `TypeError` or `RangeError` names a bad one) and resolves their defaults. */
export function countingOf(options: EstimateRequestOptions): Counting {
  if (typeof options !== "object" || options === null)
    throw new TypeError("estimateRequest(): options must be an object");
  const { tokenizer, defaultMaxTokens = 4096, imageSize } = options;
  if (tokenizer !== undefined && typeof tokenizer !== "function")
    throw new TypeError("estimateRequest(): tokenizer must be a function (text) => number");
  if (!Number.isSafeInteger(defaultMaxTokens) || defaultMaxTokens < 0)
    throw new RangeError(`estimateRequest(): defaultMaxTokens must be an integer >= 0, got ${defaultMaxTokens}`);
  if (imageSize !== undefined && !isSize(imageSize))
    throw new RangeError("estimateRequest(): imageSize must be { width, height } in positive pixels");
  return { text: tokenizer ?? textTokens, defaultMaxTokens, imageSize };
}

function isSize(value: unknown): value is ImageSize {
  const { width, height } = (isRecord(value) ? value : {}) as Partial<ImageSize>;
  return [width, height].every((n) => typeof n === "number" && Number.isFinite(n) && n > 0);
}
