import { answerPieces, answerText } from "./answers.js";
import type { Completion, SseEvent, StreamEvents } from "./completion.js";
import { MAX_STREAM_DELTAS } from "./completion.js";

/** Token counts in the shape of OpenAI's Responses API. */
export interface OpenAIResponseUsage {
  /** Tokens in the input (instructions and input items). */
  input_tokens: number;
  /** A breakdown of the input tokens. */
  input_tokens_details: {
    /** Input tokens read from the prompt cache; the simulator caches nothing: 0. */
    cached_tokens: number;
  };
  /** Tokens generated. */
  output_tokens: number;
  /** A breakdown of the output tokens. */
  output_tokens_details: {
    /** Tokens spent reasoning; the simulator does not reason: 0. */
    reasoning_tokens: number;
  };
  /** `input_tokens + output_tokens`. */
  total_tokens: number;
}

/** The output message of a response: one `output_text` part. */
export interface OpenAIResponseMessage {
  /** The item's type, always `"message"`. */
  type: "message";
  /** The message's unique id, `msg_…`. */
  id: string;
  /** `"completed"`, or `"incomplete"` when the answer was cut off at `max_output_tokens`. */
  status: "completed" | "incomplete";
  /** Who wrote the message: always `"assistant"`. */
  role: "assistant";
  /** The message's parts; the simulator sends one. */
  content: {
    /** The part's type, always `"output_text"`. */
    type: "output_text";
    /** The part's text. */
    text: string;
    /** Citations in the text; none here. */
    annotations: never[];
    /** Log probabilities of the tokens, when requested; none here. */
    logprobs: never[];
  }[];
}

/** A non-streaming `POST /v1/responses` body (and the `response` of the stream's last event). */
export interface OpenAIResponse {
  /** The response's unique id, `resp_…`. */
  id: string;
  /** The object type, always `"response"`. */
  object: "response";
  /** When the response was created, in Unix seconds. */
  created_at: number;
  /** `"completed"`, or `"incomplete"` when the answer was cut off at `max_output_tokens`. */
  status: "completed" | "incomplete";
  /** The error, when the response failed; `null` here. */
  error: null;
  /** Why the response is incomplete, when it is; else `null`. */
  incomplete_details: {
    /** Always `"max_output_tokens"`: the answer was cut off at the cap. */
    reason: "max_output_tokens";
  } | null;
  /** The model that answered: here the request's `model`, echoed. */
  model: string;
  /** The items the model generated: one message. */
  output: OpenAIResponseMessage[];
  /** Whether the model may call tools in parallel: the API's default, `true`. */
  parallel_tool_calls: boolean;
  /** How the model chose tools: the API's default, `"auto"`. */
  tool_choice: "auto";
  /** The tools the model could call; none here. */
  tools: never[];
  /** Tokens the request used. */
  usage: OpenAIResponseUsage;
}

/** The Responses API body for a finished answer. */
export function responseBody(completion: Completion): OpenAIResponse {
  return {
    ...responseHead(completion),
    status: statusOf(completion),
    incomplete_details: completion.truncated ? { reason: "max_output_tokens" } : null,
    output: [message(completion, answerText(completion.outputTokens), statusOf(completion))],
    usage: {
      input_tokens: completion.promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: completion.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: completion.promptTokens + completion.outputTokens,
    },
  };
}

/**
 * The Responses API's typed events, each `event: <type>` with a `sequence_number` from 0:
 * `response.created` and `response.in_progress` (no usage yet), `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta`s, `response.output_text.done`,
 * `response.content_part.done`, `response.output_item.done`, then `response.completed` (or
 * `response.incomplete` when cut off at `max_output_tokens`) carrying the whole response and its usage.
 */
export function responseStream(completion: Completion): StreamEvents {
  let sequence = 0;
  const event = (type: string, body: object): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, sequence_number: sequence++, ...body }),
  });
  const final = responseBody(completion);
  const item = final.output[0]!;
  const part = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] });
  const inProgress = { ...responseHead(completion), status: "in_progress", incomplete_details: null, output: [] };
  const at = { item_id: item.id, output_index: 0, content_index: 0 };
  const head = [
    event("response.created", { response: { ...inProgress, usage: null } }),
    event("response.in_progress", { response: { ...inProgress, usage: null } }),
    event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
    event("response.content_part.added", { ...at, part: part("") }),
  ];
  const deltas = answerPieces(completion.outputTokens, MAX_STREAM_DELTAS).map((delta) =>
    event("response.output_text.delta", { ...at, delta, logprobs: [] }),
  );
  const text = item.content[0]!.text;
  const tail = [
    event("response.output_text.done", { ...at, text, logprobs: [] }),
    event("response.content_part.done", { ...at, part: part(text) }),
    event("response.output_item.done", { output_index: 0, item }),
    event(completion.truncated ? "response.incomplete" : "response.completed", { response: final }),
  ];
  return { head, deltas, tail };
}

/** What every state of a response shares. */
function responseHead(completion: Completion) {
  return {
    id: `resp_${completion.id}`,
    object: "response" as const,
    created_at: Math.floor(completion.createdAt / 1000),
    error: null,
    model: completion.model,
    parallel_tool_calls: true,
    tool_choice: "auto" as const,
    tools: [],
  };
}

function message(completion: Completion, text: string, status: OpenAIResponse["status"]): OpenAIResponseMessage {
  return {
    type: "message",
    id: `msg_${completion.id}`,
    status,
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

function statusOf(completion: Completion): OpenAIResponse["status"] {
  return completion.truncated ? "incomplete" : "completed";
}
