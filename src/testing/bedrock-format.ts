import type { RejectionDimension } from "./dimensions.js";
import type { Rejection } from "./rejection.js";

/**
 * Bedrock's `ThrottlingException` body: a message alone; the exception's name is in `x-amzn-errortype`.
 * @inline
 */
export interface BedrockErrorBody {
  /** `Too many requests, please wait before trying again.` or `Too many tokens, …` (`…tokens per day, …`). */
  message: string;
}

/** What Bedrock's 429s say is exhausted, per dimension (docs/providers.md); per-day requests by the same pattern. */
const WHAT: Readonly<Record<RejectionDimension, string>> = {
  rpm: "requests",
  rpd: "requests per day",
  tpm: "tokens",
  tpd: "tokens per day",
  itpm: "tokens",
  otpm: "tokens",
  concurrency: "requests",
};

/** The body of a Bedrock `ThrottlingException` (HTTP 429). */
export function bedrockThrottlingBody(rejection: Rejection): BedrockErrorBody {
  return { message: `Too many ${WHAT[rejection.dimension]}, please wait before trying again.` };
}
