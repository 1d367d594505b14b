/** What the driver tracks of a run, and the view of it the invariants read. */
import type { Clock as InstalledClock } from "@sinonjs/fake-timers";
import type { Estimate, Limiter, Reservation } from "../../../src/index.js";
import type { Bucket, Model } from "./model.js";

export interface Request {
  readonly id: number;
  readonly estimate: Estimate;
  readonly arrivedAt: number;
  /** Virtual time of its `maxWaitMs` deadline; `Infinity` for none. */
  readonly deadline: number;
  readonly maxWaitMs: number | undefined;
  readonly controller: AbortController | undefined;
  /** When the model, on arrival, would admit it if nothing else happened. */
  readonly admissibleAt: number;
  aborted: boolean;
  status: "queued" | "admitted" | "rejected";
  error?: unknown;
  /** Virtual time it was refused, if it was. */
  rejectedAt?: number;
  reservation?: Reservation;
  charges?: Map<Bucket, number>;
  released: boolean;
}

/** How the limiter settled a request's `acquire`, observed before the driver replays it against the model. */
export type Outcome = { request: Request; reservation: Reservation } | { request: Request; error: unknown };

/** A run as the invariants see it: the model next to the limiter it drives, on the same fake timers. */
export interface RunState {
  readonly model: Model;
  readonly limiter: Limiter;
  readonly timers: InstalledClock;
  readonly requests: readonly Request[];
  /** The model's FIFO of waiting requests. */
  queued(): readonly Request[];
}
