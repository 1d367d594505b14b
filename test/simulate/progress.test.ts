import { describe, expect, it } from "vitest";
import { progressLine } from "../../src/simulate/progress.js";

function stream(isTTY: boolean): { isTTY: boolean; columns: number; written: string[]; write(t: string): void } {
  const written: string[] = [];
  return { isTTY, columns: 100, written, write: (text) => written.push(text) };
}

describe("progressLine", () => {
  it("draws a bar of simulated time over the estimated end on a terminal, and clears it at the end", () => {
    const tty = stream(true);
    const line = progressLine(tty);
    line.onProgress({ run: "limiter", simulatedMs: 30_000, estimatedEndMs: 120_000 });
    // Redrawn at most ten times a real second: an immediate second call draws nothing.
    line.onProgress({ run: "limiter", simulatedMs: 31_000, estimatedEndMs: 120_000 });
    line.end();
    expect(tty.written).toEqual([
      `\rsimulating limiter    [######..................] 0:30 / ~2:00 simulated\x1b[K`,
      "\r\x1b[K",
    ]);
  });

  it("shows a full bar past the estimate, cut to the terminal's width", () => {
    const tty = { ...stream(true), columns: 30 };
    progressLine(tty).onProgress({ run: "no limiter", simulatedMs: 300_000, estimatedEndMs: 120_000 });
    expect(tty.written).toEqual([`\rsimulating no limiter [######\x1b[K`]);
  });

  it("writes nothing when the stream is not a terminal", () => {
    const pipe = stream(false);
    const line = progressLine(pipe);
    line.onProgress({ run: "limiter", simulatedMs: 1, estimatedEndMs: 2 });
    line.end();
    expect(pipe.written).toEqual([]);
  });
});
