import type { AnthropicErrorBody, AnthropicMessage } from "./anthropic-format.js";
import {
  anthropicErrorBody,
  anthropicMessageBody,
  anthropicMessageStream,
  anthropicRateLimitBody,
} from "./anthropic-format.js";
import type { Completion, StreamEvents } from "./completion.js";
import type { OpenAIEmbeddingList } from "./embeddings-format.js";
import { embeddingsBody } from "./embeddings-format.js";
import type { OpenAIChatCompletion, OpenAIErrorBody } from "./openai-format.js";
import {
  chatCompletionBody,
  chatCompletionStream,
  openAIInvalidRequestBody,
  openAIRateLimitBody,
} from "./openai-format.js";
import type { Rejection } from "./rejection.js";
import type { ApiShape, ParsedRequest } from "./requests.js";
import type { OpenAIResponse } from "./responses-format.js";
import { responseBody, responseStream } from "./responses-format.js";

/** How one API shape writes each kind of response; `Body` is its answer's. */
export interface WireFormat<Body = unknown> {
  /** A finished non-streaming answer to `request`. */
  body(completion: Completion, request: ParsedRequest): Body;
  /** A streamed answer; `includeUsage` is OpenAI's `stream_options.include_usage`. None: the shape does not stream. */
  stream?(completion: Completion, includeUsage: boolean): StreamEvents;
  /** A 429. */
  rateLimited(rejection: Rejection): OpenAIErrorBody | AnthropicErrorBody;
  /** A 400 for a request the simulator cannot read. */
  invalidRequest(message: string): OpenAIErrorBody | AnthropicErrorBody;
}

/** OpenAI's error bodies, which every OpenAI route shares. */
const OPENAI_ERRORS = {
  rateLimited: openAIRateLimitBody,
  invalidRequest: (message: string) => openAIInvalidRequestBody(message),
};

/** The answer body of each API shape. */
interface AnswerBodies {
  "chat.completions": OpenAIChatCompletion;
  messages: AnthropicMessage;
  responses: OpenAIResponse;
  embeddings: OpenAIEmbeddingList;
}

/** The wire format of each API shape the simulator speaks. */
export const WIRE_FORMATS: { readonly [S in ApiShape]: WireFormat<AnswerBodies[S]> } = {
  "chat.completions": { body: chatCompletionBody, stream: chatCompletionStream, ...OPENAI_ERRORS },
  messages: {
    body: anthropicMessageBody,
    stream: (completion) => anthropicMessageStream(completion),
    rateLimited: anthropicRateLimitBody,
    invalidRequest: (message) => anthropicErrorBody("invalid_request_error", message),
  },
  responses: { body: responseBody, stream: (completion) => responseStream(completion), ...OPENAI_ERRORS },
  embeddings: {
    // The embeddings parser always says what was asked.
    body: (completion, request) => embeddingsBody(completion, request.embeddings!),
    ...OPENAI_ERRORS,
  },
};
