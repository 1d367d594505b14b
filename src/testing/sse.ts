import type { ServerResponse } from "node:http";
import type { SseEvent, StreamEvents } from "./completion.js";
import { delay } from "./delay.js";

/** One event in server-sent-events framing: optional `event:` line, `data:` line, blank line. */
function formatSseEvent(event: SseEvent): string {
  return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${event.data}\n\n`;
}

/**
 * Plays a stream over `durationMs`: `head` at once, the deltas evenly spread,
 * then `finish()` (which must reconcile the call) and the `tail`. The timeline
 * runs to the end even if the client goes away, as a server keeps generating;
 * writes to a closed response are skipped.
 */
export async function playSseStream(
  res: ServerResponse,
  events: StreamEvents,
  durationMs: number,
  finish: () => void,
): Promise<void> {
  const write = (list: readonly SseEvent[]): void => {
    if (!res.destroyed) res.write(list.map(formatSseEvent).join(""));
  };
  write(events.head);
  const steps = Math.max(1, events.deltas.length);
  let elapsed = 0;
  for (let i = 1; i <= steps; i++) {
    // Whole-millisecond targets from the start, ending exactly at durationMs,
    // so the stream completes when the engine expects it to.
    const target = i === steps ? durationMs : Math.round((durationMs * i) / steps);
    // Unref'd, like every server-side wait: a closed server must not hold the process.
    await delay(target - elapsed, false);
    elapsed = target;
    const delta = events.deltas[i - 1];
    if (delta) write([delta]);
  }
  finish();
  write(events.tail);
  if (!res.destroyed) res.end();
}
