/** One server-sent event: its `event:` name (if any) and its `data:` lines joined. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** Decides per complete event whether the caller sees it (`false` hides it). */
export type SseObserver = (event: SseEvent) => boolean;

/** How an observed stream ended. */
export type StreamEnd = "end" | "error" | "cancel";

const EVENT_END = /\r\n\r\n|\n\n|\r\r/;

/**
 * The response body as it passes, split into server-sent events: each complete event goes to
 * `observe`, and on to the caller unless `observe` hides it; `ended` is called once, when the
 * source ends, fails or the caller cancels. Reads only as the caller pulls.
 */
export function observeSse(
  body: ReadableStream<Uint8Array>,
  observe: SseObserver,
  ended: (how: StreamEnd) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = "";
  let over = false;
  const end = (how: StreamEnd): void => {
    if (over) return;
    over = true;
    ended(how);
  };
  /** Takes the complete events off the buffer; returns the text to pass on. */
  const drain = (final: boolean): string => {
    let out = "";
    for (let match = EVENT_END.exec(buffer); match; match = EVENT_END.exec(buffer)) {
      const raw = buffer.slice(0, match.index + match[0].length);
      buffer = buffer.slice(raw.length);
      if (observe(parseEvent(raw))) out += raw;
    }
    if (final && buffer !== "") {
      if (observe(parseEvent(buffer))) out += buffer;
      buffer = "";
    }
    return out;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          const out = done
            ? drain(true) + decoder.decode()
            : ((buffer += decoder.decode(value, { stream: true })), drain(false));
          if (out !== "") controller.enqueue(encoder.encode(out));
          if (done) {
            controller.close();
            end("end");
            return;
          }
          if (out !== "") return;
        }
      } catch (error) {
        end("error");
        controller.error(error);
      }
    },
    async cancel(reason) {
      end("cancel");
      await reader.cancel(reason);
    },
  });
}

function parseEvent(raw: string): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\n|\r/)) {
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return { event, data: data.join("\n") };
}
