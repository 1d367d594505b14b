/** What the wire formats need to know about a finished (or streaming) answer. */
export interface Completion {
  /** The call's id, unique per provider; each format adds its own prefix. */
  readonly id: string;
  /** The model named in the request, echoed back. */
  readonly model: string;
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** The answer was cut off at `max_tokens` (finish reason `length` / stop reason `max_tokens`). */
  readonly truncated: boolean;
  /** Wall-clock epoch milliseconds when the call was admitted. */
  readonly createdAt: number;
}

/** One server-sent event: an optional event name and its data line. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/**
 * A streamed answer in three parts: `head` is sent with the response head,
 * `deltas` are spread over the latency, `tail` (carrying usage) ends the stream.
 */
export interface StreamEvents {
  readonly head: readonly SseEvent[];
  readonly deltas: readonly SseEvent[];
  readonly tail: readonly SseEvent[];
}

/** Most content deltas a stream carries, so long answers do not need thousands of timers. */
export const MAX_STREAM_DELTAS = 8;
