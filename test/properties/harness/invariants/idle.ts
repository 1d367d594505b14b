/** What must hold once a run is drained: every request released and the queue empty. */
import { flushPromises } from "../../../fake-time.js";
import { check } from "../check.js";
import type { RunState } from "../state.js";

/** Liveness, at the end: no request is still queued, no timer is left, and `onIdle()` resolves. */
export async function idleOnceDrained({ limiter, requests, timers }: RunState): Promise<void> {
  for (const request of requests) check(request.status !== "queued", () => `#${request.id} still queued after drain`);
  check(timers.countTimers() === 0, () => `${timers.countTimers()} timers left once idle`);
  let idle = false;
  void limiter.onIdle().then(() => (idle = true));
  await flushPromises();
  check(idle, () => "onIdle() resolves once idle");
}
