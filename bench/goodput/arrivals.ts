/** The arrival delays of a workload's calls: drawn per call, in the order calls reach the provider's door. */
import { between, seededRandom } from "../../src/testing/random.js";
import type { Workload } from "./workloads.js";

/**
 * The delay of the call sent `index`-th, uniform in 0..`arrival.maxMs` from
 * the workload's seed (0 without `arrival`). A fresh draw sequence per call
 * of this function, so every run meets the same delays in the same order.
 */
export function arrivalDelays(workload: Workload): (index: number) => number {
  const arrival = workload.arrival;
  if (!arrival) return () => 0;
  const random = seededRandom(arrival.seed);
  const drawn: number[] = [];
  return (index) => {
    while (drawn.length <= index) drawn.push(between(random, 0, arrival.maxMs));
    return drawn[index]!;
  };
}
