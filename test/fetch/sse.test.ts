import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { observeSse, type SseEvent, type StreamEnd } from "../../src/fetch/sse.js";

/** `bytes` cut at `cuts` (positions, any order), as chunks of a body. */
function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces = [0, ...points, bytes.length]
    .slice(1)
    .map((end, i, ends) => bytes.slice(i === 0 ? 0 : ends[i - 1], end));
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) if (piece.length > 0) controller.enqueue(piece);
      controller.close();
    },
  });
}

const eventArb = fc.record({
  name: fc.option(fc.constantFrom("message_start", "ping", "delta"), { nil: undefined }),
  data: fc.string({ unit: fc.constantFrom("a", "b", " ", "{", "}", "令", "牌", "é", "🎉") }),
  hidden: fc.boolean(),
  newline: fc.constantFrom("\n", "\r\n"),
});

describe("observeSse", () => {
  it("passes every event the observer keeps, byte for byte, however the body is cut", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 1, maxLength: 8 }), fc.array(fc.nat()), async (events, cuts) => {
        const raws = events.map(
          (e) => `${e.name ? `event: ${e.name}${e.newline}` : ""}data: ${e.data}${e.newline}${e.newline}`,
        );
        const seen: SseEvent[] = [];
        const ends: StreamEnd[] = [];
        let i = 0;
        const body = observeSse(
          chunked(new TextEncoder().encode(raws.join("")), cuts),
          (event) => {
            seen.push(event);
            return !events[i++]!.hidden;
          },
          (how) => ends.push(how),
        );
        const text = await new Response(body).text();
        expect(text).toBe(raws.filter((_, k) => !events[k]!.hidden).join(""));
        expect(seen).toEqual(events.map((e) => ({ event: e.name, data: e.data })));
        expect(ends).toEqual(["end"]);
      }),
    );
  });

  it("splits at any blank line (LF, CRLF, CR, mixed) however cut, observing only what names the marker", async () => {
    const ending = fc
      .tuple(fc.constantFrom("\n", "\r\n", "\r"), fc.constantFrom("\n", "\r\n", "\r"))
      // A CR then an LF is one line end, not two.
      .filter(([line, blank]) => !(line === "\r" && blank.startsWith("\n")));
    const mixedArb = fc.record({
      data: fc.string({ unit: fc.constantFrom("a", " ", "{", "usage", "令", "🎉") }),
      hidden: fc.boolean(),
      ending,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(mixedArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat()),
        fc.boolean(),
        async (events, cuts, mayHide) => {
          const raws = events.map((e) => `data: ${e.data}${e.ending[0]}${e.ending[1]}`);
          const observed = events.filter((e) => e.data.includes("usage"));
          const seen: string[] = [];
          let i = 0;
          const body = observeSse(
            chunked(new TextEncoder().encode(raws.join("")), cuts),
            (event) => {
              seen.push(event.data);
              return !(mayHide && observed[i++]!.hidden);
            },
            () => undefined,
            { only: "usage", mayHide },
          );
          const kept = raws.filter((_, k) => !(mayHide && events[k]!.hidden && events[k]!.data.includes("usage")));
          expect(await new Response(body).text()).toBe(kept.join(""));
          expect(seen).toEqual(observed.map((e) => e.data));
        },
      ),
    );
  });

  it("ends once, as cancelled, when the caller cancels", async () => {
    const ends: StreamEnd[] = [];
    const body = observeSse(
      chunked(new TextEncoder().encode("data: 1\n\ndata: 2\n\n"), [9]),
      () => true,
      (how) => ends.push(how),
    );
    const reader = body.getReader();
    await reader.read();
    await reader.cancel();
    expect(ends).toEqual(["cancel"]);
  });

  it("ends as failed, and fails the caller's read, when the body errors", async () => {
    const ends: StreamEnd[] = [];
    const failing = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new Error("reset")) });
    const body = observeSse(
      failing,
      () => true,
      (how) => ends.push(how),
    );
    await expect(new Response(body).text()).rejects.toThrow("reset");
    expect(ends).toEqual(["error"]);
  });
});
