import type { AnthropicErrorBody, AnthropicMessage } from "./anthropic-format.js";
import {
  anthropicErrorBody,
  anthropicMessageBody,
  anthropicMessageStream,
  anthropicRateLimitBody,
} from "./anthropic-format.js";
import type { Completion, StreamEvents } from "./completion.js";
import type { OpenAIChatCompletion, OpenAIErrorBody } from "./openai-format.js";
import {
  chatCompletionBody,
  chatCompletionStream,
  openAIInvalidRequestBody,
  openAIRateLimitBody,
} from "./openai-format.js";
import type { Rejection } from "./rejection.js";
import type { ApiShape } from "./requests.js";

/** How one API shape writes each kind of response. */
export interface WireFormat {
  /** A finished non-streaming answer. */
  body(completion: Completion): OpenAIChatCompletion | AnthropicMessage;
  /** A streamed answer; `includeUsage` is OpenAI's `stream_options.include_usage`. */
  stream(completion: Completion, includeUsage: boolean): StreamEvents;
  /** A 429. */
  rateLimited(rejection: Rejection): OpenAIErrorBody | AnthropicErrorBody;
  /** A 400 for a request the simulator cannot read. */
  invalidRequest(message: string): OpenAIErrorBody | AnthropicErrorBody;
}

/** The wire format of each API shape the simulator speaks. */
export const WIRE_FORMATS: Readonly<Record<ApiShape, WireFormat>> = {
  "chat.completions": {
    body: chatCompletionBody,
    stream: chatCompletionStream,
    rateLimited: openAIRateLimitBody,
    invalidRequest: (message) => openAIInvalidRequestBody(message),
  },
  messages: {
    body: anthropicMessageBody,
    stream: (completion) => anthropicMessageStream(completion),
    rateLimited: anthropicRateLimitBody,
    invalidRequest: (message) => anthropicErrorBody("invalid_request_error", message),
  },
};
