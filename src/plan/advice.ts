import type { DimensionPlan, PlanInput } from "./types.js";
import { amount } from "./render.js";

const UNIT_WORDS: Readonly<Record<string, string>> = {
  rpm: "requests",
  rpd: "requests",
  tpm: "tokens",
  tpd: "tokens",
  itpm: "input tokens",
  otpm: "output tokens",
};

/** Why `binding` sets the rate, in one sentence. */
export function bindingReason(
  binding: DimensionPlan,
  dimensions: readonly DimensionPlan[],
  crossover: number | undefined,
  input: PlanInput,
): string {
  const own =
    binding.name === "concurrency"
      ? `${binding.limit} slots, each freed after ${amount(binding.windowMs)} ms`
      : `${amount(binding.limit)} ${UNIT_WORDS[binding.name]} a ${binding.windowMs === 60_000 ? "minute" : "day"} ÷ ${amount(binding.consumed)} a call`;
  const others = dimensions.filter((d) => d !== binding).map((d) => `; ${d.name} allows ${amount(d.callsPerMinute)}`);
  const why =
    crossover === undefined || (binding.name !== "rpm" && binding.name !== "tpm")
      ? ""
      : `; a call uses ${amount(input.prompt + input.completion)} tokens, ${binding.name === "tpm" ? "above" : "below"} the crossover of ${amount(crossover)}`;
  return `${binding.name} allows ${amount(binding.callsPerMinute)} calls/min (${own})${others.join("")}${why}`;
}

/** What would raise the rate, and what a `maxTokens` nearer the answers would give. */
export function recommendations(
  binding: DimensionPlan,
  input: PlanInput,
  callsAtOnce: number,
  callsAtOnceTrimmed: number,
  trimmedMaxTokens: number,
): string[] {
  const advice: string[] = [];
  if (binding.name === "concurrency") {
    advice.push(`concurrency binds: more slots or shorter calls raise the rate`);
  } else if (binding.reserved === 1) {
    advice.push(
      `${binding.name} binds: fewer, larger calls (several prompts in one) would use more of the token budgets`,
    );
  } else {
    advice.push(`${binding.name} binds: only fewer tokens a call or a higher ${binding.name} raise the rate`);
  }
  if (callsAtOnceTrimmed > callsAtOnce) {
    advice.push(
      `max_tokens ${amount(input.maxTokens)} reserves ${amount(input.maxTokens / input.completion)}x what answers of ${amount(input.completion)} use: ` +
        `full buckets admit ${amount(callsAtOnce)} calls at once; max_tokens ${amount(trimmedMaxTokens)} would admit ${amount(callsAtOnceTrimmed)} ` +
        `(the sustained rate stays: unused reservations are refunded)`,
    );
  }
  return advice;
}
