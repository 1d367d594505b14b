import { clock } from "./format.js";
import type { SimulateProgress } from "./options.js";

/** Where a progress line is drawn: stderr, or a stand-in in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/** Least real time between two redraws: the line stays readable and costs nothing. */
const REDRAW_NS = 100_000_000n;
const BAR = 24;

/**
 * A live line for `llm-limiter simulate` on a terminal: which run, a bar of simulated time over
 * the estimated end (the makespan bound; a run that takes longer shows a full bar and its time),
 * redrawn at most ten times a second of real time. On anything but a TTY it writes nothing.
 */
export function progressLine(stream: ProgressStream): {
  onProgress: (progress: SimulateProgress) => void;
  end: () => void;
} {
  if (stream.isTTY !== true) return { onProgress: () => {}, end: () => {} };
  // Real time: Date and performance are virtual while a run lasts, process.hrtime is not.
  let last = 0n;
  let drawn = false;
  return {
    onProgress({ run, simulatedMs, estimatedEndMs }) {
      const now = process.hrtime.bigint();
      if (drawn && now - last < REDRAW_NS) return;
      last = now;
      drawn = true;
      const share = estimatedEndMs > 0 ? Math.min(1, simulatedMs / estimatedEndMs) : 1;
      const filled = Math.round(share * BAR);
      const line = `simulating ${run.padEnd(10)} [${"#".repeat(filled)}${".".repeat(BAR - filled)}] ${clock(simulatedMs)} / ~${clock(estimatedEndMs)} simulated`;
      stream.write(`\r${line.slice(0, (stream.columns ?? 80) - 1)}\x1b[K`);
    },
    end() {
      if (drawn) stream.write("\r\x1b[K");
      drawn = false;
    },
  };
}
