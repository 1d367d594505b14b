import type { Usage } from "../core/limits.js";
import type { Reservation } from "../core/reservation.js";
import type { ModelUsage, StreamPart } from "./types.js";

/**
 * `source` as the caller reads it, holding `reservation` until the stream ends: the `finish` part's usage is
 * settled as it passes, and the reservation is released when the stream closes, errors or its reader cancels it.
 * A stream that stops before its `finish` part keeps the estimate. Parts are read only as the caller asks, so
 * nothing is buffered here.
 */
export function holdUntilEnd(
  source: ReadableStream<StreamPart>,
  reservation: Reservation,
  usedOf: (usage: ModelUsage) => Usage | undefined,
): ReadableStream<StreamPart> {
  const reader = source.getReader();
  return new ReadableStream<StreamPart>(
    {
      async pull(controller) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          if (reservation.released) return; // cancelled while reading
          reservation.release();
          controller.error(error);
          return;
        }
        if (reservation.released) return;
        if (next.done) {
          reservation.release();
          controller.close();
          return;
        }
        if (next.value.type === "finish") {
          const used = usedOf(next.value.usage);
          if (used !== undefined) reservation.settle(used);
        }
        controller.enqueue(next.value);
      },
      cancel(reason) {
        reservation.release();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
