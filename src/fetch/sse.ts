import { splitEvents, type EventSplitter, type SplitOptions, type SseObserver } from "./sse-events.js";

export type { SseEvent, SseObserver } from "./sse-events.js";

/** How an observed stream ended (an aborted request counts as cancelled). */
export type StreamEnd = "end" | "error" | "cancel";

/** How a stream is observed: as its events are split, and the request's signal. */
export interface SseOptions extends SplitOptions {
  /** The request's signal: its abort ends the observation at once. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The response body as it passes, split into server-sent events: each complete event goes to `observe`,
 * and on to the caller unless `observe` hides it; `ended` is called once, when the source ends, fails or
 * the caller cancels. The caller gets the source's bytes unchanged (only hidden events are cut out); the
 * bytes are scanned once for event boundaries, and only events to observe are decoded. Reads only as the
 * caller pulls.
 */
export function observeSse(
  body: ReadableStream<Uint8Array>,
  observe: SseObserver,
  ended: (how: StreamEnd) => void,
  options: SseOptions = {},
): ReadableStream<Uint8Array> {
  const { signal } = options;
  const reader = body.getReader();
  const splitter: EventSplitter = splitEvents(observe, options);
  let over = false;
  const end = (how: StreamEnd): void => {
    if (over) return;
    over = true;
    signal?.removeEventListener("abort", onAbort);
    ended(how);
  };
  const onAbort = (): void => end("cancel");
  if (signal?.aborted) end("cancel");
  else signal?.addEventListener("abort", onAbort);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          const out = done ? splitter.finish() : splitter.push(value);
          for (const piece of out) controller.enqueue(piece);
          if (done) {
            controller.close();
            end("end");
            return;
          }
          if (out.length > 0) return;
        }
      } catch (error) {
        end("error");
        controller.error(error);
      }
    },
    cancel(reason) {
      end("cancel");
      // The caller's cancel resolves at once, even on a source that stalls.
      reader.cancel(reason).catch(() => undefined);
    },
  });
}
