import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tapBody, type TapEnd } from "../../src/fetch/tap.js";

/** A body of `chunks`, each enqueued as its own chunk; counts the chunks read and whether it was cancelled. */
function source(chunks: Uint8Array[]) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

const turns = async (): Promise<void> => {
  for (let i = 0; i < 50; i++) await Promise.resolve();
};

const chunksArb = fc.array(fc.uint8Array({ minLength: 1, maxLength: 16 }), { maxLength: 12 });

describe("tapBody", () => {
  it("hands the caller the same chunks, and the tap the chunks up to the one it wanted last, once", async () => {
    await fc.assert(
      fc.asyncProperty(chunksArb, fc.nat(14), async (chunks, wanted) => {
        const { body } = source(chunks);
        const seen: Uint8Array[] = [];
        const ends: TapEnd[] = [];
        const tapped = tapBody(body, {
          see: (chunk) => (seen.push(chunk), seen.length < wanted),
          done: (how) => ends.push(how),
        });
        const read: Uint8Array[] = [];
        const reader = tapped.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value);
        expect(read).toEqual(chunks);
        // The same objects: nothing copied or re-encoded on the way.
        read.forEach((chunk, i) => expect(chunk).toBe(chunks[i]));
        const seenCount = wanted === 0 ? Math.min(1, chunks.length) : Math.min(wanted, chunks.length);
        expect(seen).toEqual(chunks.slice(0, seenCount));
        expect(ends).toEqual([chunks.length >= Math.max(1, wanted) ? "enough" : "end"]);
      }),
    );
  });

  it("reads ahead while tapping, without the caller; only as the caller pulls after", async () => {
    const { body, state } = source([1, 2, 3, 4, 5, 6].map((n) => new Uint8Array([n])));
    const ends: TapEnd[] = [];
    const tapped = tapBody(body, { see: (chunk) => chunk[0]! < 3, done: (how) => ends.push(how) });
    await turns();
    expect(ends).toEqual(["enough"]);
    // The chunks 1 to 3 were read for the tap; the stream's own pull asked for one more.
    expect(state.pulled).toBeLessThanOrEqual(4);
    const reader = tapped.getReader();
    const read: number[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value[0]!);
    expect(read).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a caller's cancel resolves at once; a tap that outlives it reads on, then cancels the source", async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      cancel: () => void (cancelled = true),
    });
    const events: string[] = [];
    const tapped = tapBody(
      body,
      {
        see: (chunk) => (events.push(`see ${chunk[0]}`), chunk[0]! < 2),
        done: (how) => events.push(`done ${how}`),
        left: () => events.push("left"),
      },
      { outlivesCaller: true },
    );
    await tapped.cancel();
    expect(events).toEqual(["left"]);
    controller.enqueue(new Uint8Array([1]));
    controller.enqueue(new Uint8Array([2]));
    await turns();
    expect(events).toEqual(["left", "see 1", "see 2", "done enough"]);
    expect(cancelled).toBe(true);
  });

  it("a tap that does not outlive the caller is done at its cancel, and the source cancelled", async () => {
    const { body, state } = source([new Uint8Array([1])]);
    const ends: TapEnd[] = [];
    const tapped = tapBody(body, { see: () => true, done: (how) => ends.push(how) });
    await tapped.cancel();
    expect(ends).toEqual(["cancel"]);
    await turns();
    expect(state.cancelled).toBe(true);
  });
});
