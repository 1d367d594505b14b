import { inferredWindow, readTriple, toDimension, tripleNames } from "../dimension.js";
import { UNKNOWN_WINDOW } from "../window.js";
import { collect, type Dialect } from "./dialect.js";
import { readOpenAiNames } from "./openai.js";
import { readSuffixedNames } from "./suffixed.js";

const INFER = inferredWindow(UNKNOWN_WINDOW);

/**
 * An unrecognised sender: OpenAI's `x-ratelimit-*-{requests,tokens}` names, the bare
 * `x-ratelimit-{limit,remaining,reset}` (read as requests, as OpenRouter and Together mean
 * them), and names that spell their window. Nothing is assumed about a window the name
 * does not spell: it is inferred from the triple, else assumed as short as the triple
 * allows (a minute at least).
 */
export const readGeneric: Dialect = (headers, ctx) => {
  const bare = toDimension(readTriple(headers, "requests", tripleNames("x-ratelimit"), ctx), INFER);
  const named = readOpenAiNames(headers, ctx, INFER, INFER);
  return { dimensions: collect([...named, bare, ...readSuffixedNames(headers, ctx)]) };
};
