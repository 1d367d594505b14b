import type { ProviderName } from "../types.js";
import { readAnthropic } from "./anthropic.js";
import type { Dialect } from "./dialect.js";
import { readGeneric } from "./generic.js";
import { readIetf } from "./ietf.js";
import { readAzure, readGroq, readOpenAi } from "./openai.js";
import { readOpenRouter } from "./openrouter.js";
import { readSuffixed } from "./suffixed.js";
import { readTogether } from "./together.js";

export { detectProvider } from "./detect.js";

/** Each provider's header reader; `unknown` reads the common names, with the windows only their triples tell. */
export const DIALECTS: Readonly<Record<ProviderName | "unknown", Dialect>> = {
  openai: readOpenAi,
  azure: readAzure,
  anthropic: readAnthropic,
  groq: readGroq,
  cerebras: readSuffixed,
  mistral: readSuffixed,
  openrouter: readOpenRouter,
  together: readTogether,
  ietf: readIetf,
  unknown: readGeneric,
};
