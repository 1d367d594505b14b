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
 * Headers only Azure sends. `apim-request-id` is Azure API Management's request id, which
 * Azure's own OpenAPI description of Azure OpenAI declares on every inference response, errors
 * included (Azure/azure-rest-api-specs, specification/cognitiveservices/data-plane/AzureOpenAI/
 * inference/stable/2024-10-21/inference.json); `x-ms-region` (the `x-ms-` prefix is Microsoft's)
 * and `azureml-model-session` come with them on Azure OpenAI's responses. Azure's
 * `x-ratelimit-*` names are OpenAI's, so without these its sub-window allowances read as
 * another sender's budgets.
 */
const AZURE_NAMES: ReadonlySet<string> = new Set(["apim-request-id", "x-ms-region", "azureml-model-session"]);

/**
 * The provider whose dialect the header names give away, where they do so unambiguously:
 * `anthropic-ratelimit-*` (Anthropic), `x-tokenlimit-*` (Together), `-req-minute` or
 * `-month` (Mistral), `-requests-day`, `-requests-minute` or `-tokens-day` (Cerebras),
 * {@link AZURE_NAMES} (Azure), and the IETF draft's `RateLimit*` fields. OpenAI, Groq and
 * OpenRouter share names with each other, so they are `unknown` here.
 */
export function detectProvider(headers: HeaderMap): ProviderName | "unknown" {
  let together = false;
  let mistral = false;
  let cerebras = false;
  let azure = false;
  let ietf = false;
  for (const name of headers.keys()) {
    if (name.startsWith("anthropic-ratelimit-")) return "anthropic";
    if (name.startsWith("x-tokenlimit-")) together = true;
    else if (IETF_NAMES.has(name)) ietf = true;
    else if (AZURE_NAMES.has(name)) azure = true;
    else if (name.startsWith("x-ratelimit-")) {
      if (name.endsWith("-req-minute") || name.endsWith("-month")) mistral = true;
      else if (name.endsWith("-requests-day") || name.endsWith("-requests-minute") || name.endsWith("-tokens-day")) {
        cerebras = true;
      }
    }
  }
  // Names that spell their dialect win over the host's: another provider's model served on Azure keeps its own.
  if (together) return "together";
  if (mistral) return "mistral";
  if (cerebras) return "cerebras";
  if (azure) return "azure";
  return ietf ? "ietf" : "unknown";
}
