import type { LanguageModelMiddleware } from "ai";

/**
 * The parameters of one language model call as a middleware sees them: `LanguageModelV3CallOptions` of
 * `@ai-sdk/provider` (the prompt, `maxOutputTokens`, `abortSignal`, `headers`, ...).
 */
export type ModelCallParams = Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["params"];

/** The model a middleware wraps: `LanguageModelV3` of `@ai-sdk/provider` (`provider`, `modelId`, ...). */
export type WrappedModel = Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["model"];

/** What `wrapGenerate` and `wrapStream` are handed (the same shape for both). */
type WrapOptions = Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0];

/** A non-streaming call's result. */
export type GenerateResult = Awaited<ReturnType<WrapOptions["doGenerate"]>>;

/** A streaming call's result: the stream of parts, and the response's headers. */
export type StreamResult = Awaited<ReturnType<WrapOptions["doStream"]>>;

/** One part of a streamed answer. */
export type StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never;

/** A call's usage as the AI SDK reports it: input tokens (with cache reads and writes) and output tokens. */
export type ModelUsage = GenerateResult["usage"];
