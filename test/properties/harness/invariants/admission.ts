/** What must hold whenever the limiter admits a request, checked before the model takes its cost. */
import { check } from "../check.js";
import type { Request, RunState } from "../state.js";

/** Invariant 2 (FIFO): only the head of the model's queue is ever admitted. */
export function admittedFromHead(run: RunState, request: Request): void {
  const head = run.queued()[0];
  check(head === request, () => `FIFO: #${request.id} admitted at ${run.model.now} while #${head?.id} is first`);
}

/** Invariant 1 (never over): every bucket covers the cost at the instant of admission, debt included. */
export function admittedWithinBudgets({ model }: RunState, request: Request): void {
  const short = model.short(request.estimate, -1);
  check(short.length === 0, () => `never over: #${request.id} admitted at ${model.now}, short on ${short.join(", ")}`);
}

/** A request is admitted only while a concurrency slot is free. */
export function admittedWithinConcurrency({ model }: RunState, request: Request): void {
  check(
    model.slotFree(),
    () => `concurrency: #${request.id} admitted at ${model.now} with ${model.inFlight} in flight`,
  );
}
