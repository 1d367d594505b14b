import type { HeaderMap } from "../normalize.js";
import type { ProviderName } from "../types.js";

const IETF_NAMES: ReadonlySet<string> = new Set([
  "ratelimit",
  "ratelimit-policy",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
]);

/**
 * The provider whose dialect the header names give away, where they do so unambiguously:
 * `anthropic-ratelimit-*` (Anthropic), `x-tokenlimit-*` (Together), `-req-minute` or
 * `-month` (Mistral), `-requests-day`, `-requests-minute` or `-tokens-day` (Cerebras), and the
 * IETF draft's `RateLimit*` fields. OpenAI, Azure, Groq and OpenRouter share names with
 * each other, so they are `unknown` here.
 */
export function detectProvider(headers: HeaderMap): ProviderName | "unknown" {
  let together = false;
  let mistral = false;
  let cerebras = false;
  let ietf = false;
  for (const name of headers.keys()) {
    if (name.startsWith("anthropic-ratelimit-")) return "anthropic";
    if (name.startsWith("x-tokenlimit-")) together = true;
    else if (IETF_NAMES.has(name)) ietf = true;
    else if (name.startsWith("x-ratelimit-")) {
      if (name.endsWith("-req-minute") || name.endsWith("-month")) mistral = true;
      else if (name.endsWith("-requests-day") || name.endsWith("-requests-minute") || name.endsWith("-tokens-day")) {
        cerebras = true;
      }
    }
  }
  if (together) return "together";
  if (mistral) return "mistral";
  if (cerebras) return "cerebras";
  return ietf ? "ietf" : "unknown";
}
