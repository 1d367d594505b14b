import { describe, expect, it } from "vitest";
import { stallsOf } from "../../src/simulate/report/stalls.js";
import type { SimulationRun, SimulationSample } from "../../src/simulate/types.js";

/** A run sampled every 500 ms from `[sent, waiting, waitingRoom]` triples. */
function run(points: readonly (readonly [number, number, number])[]): SimulationRun {
  const samples: SimulationSample[] = points.map(([sent, waiting, waitingRoom], i) => ({
    t: i * 500,
    arrived: sent + waiting,
    sent,
    rejected: 0,
    served: 0,
    waiting,
    inFlight: sent,
    levels: {},
    capacities: {},
    providerLevels: {},
    waitingRoom,
  }));
  return { summary: {} as SimulationRun["summary"], samples, outcomes: [] };
}

describe("stallsOf: calls waiting, nothing sent, room at the key for 3 or more, for a second or more", () => {
  it("finds the span, with the most calls waiting and the least room during it", () => {
    const stalls = stallsOf(
      run([
        [0, 0, 0],
        [4, 10, 5],
        [4, 12, 4],
        [4, 12, 6],
        [9, 7, 0],
      ]),
    );
    expect(stalls).toEqual([{ fromMs: 500, toMs: 1_500, waiting: 12, room: 4 }]);
  });

  it("ends a span where a call is sent, and starts the next one there", () => {
    const stalls = stallsOf(
      run([
        [1, 9, 5],
        [1, 9, 5],
        [1, 9, 5],
        [2, 8, 5],
        [2, 8, 5],
        [2, 8, 5],
      ]),
    );
    expect(stalls.map((s) => [s.fromMs, s.toMs])).toEqual([
      [0, 1_000],
      [1_500, 2_500],
    ]);
  });

  it.each([
    [
      "shorter than a second",
      [
        [0, 5, 9],
        [0, 5, 9],
        [1, 4, 0],
      ],
    ],
    [
      "room for 2 only: a limiter a call or two behind its key",
      [
        [0, 5, 2],
        [0, 5, 2],
        [0, 5, 2],
        [0, 5, 2],
      ],
    ],
    [
      "nothing waiting",
      [
        [3, 0, 0],
        [3, 0, 0],
        [3, 0, 0],
      ],
    ],
    [
      "a call sent at every sample",
      [
        [1, 5, 9],
        [2, 5, 9],
        [3, 5, 9],
        [4, 5, 9],
      ],
    ],
    [
      "room lost half-way",
      [
        [0, 5, 9],
        [0, 5, 9],
        [0, 5, 1],
        [0, 5, 9],
        [0, 5, 9],
      ],
    ],
  ] as const)("finds none when %s", (_, points) => {
    expect(stallsOf(run(points))).toEqual([]);
  });
});
