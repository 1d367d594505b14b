import { DAY, MINUTE } from "../bounds.js";
import { fixedWindow, inferredWindow, readTriple, toDimension, tripleNames, type WindowRule } from "../dimension.js";
import type { HeaderMap } from "../normalize.js";
import type { TimeContext } from "../reset.js";
import type { ReportedDimension } from "../types.js";
import { collect, type Dialect } from "./dialect.js";

/**
 * The `-requests`, `-tokens` and `-project-tokens` triples under OpenAI's names. The
 * project-scoped token limit is a second token budget, named `project-<name>`
 * (`project-tpm`); the limiter applies both, so the tighter one binds.
 */
export function readOpenAiNames(
  headers: HeaderMap,
  ctx: TimeContext,
  requests: WindowRule,
  tokens: WindowRule,
): Iterable<[string, ReportedDimension] | undefined> {
  const read = (unit: "requests" | "tokens", suffix: string, rule: WindowRule) =>
    toDimension(readTriple(headers, unit, tripleNames("x-ratelimit", suffix), ctx), rule);
  const project = read("tokens", "-project-tokens", tokens);
  return [
    read("requests", "-requests", requests),
    read("tokens", "-tokens", tokens),
    project === undefined ? undefined : [`project-${project[0]}`, project[1]],
  ];
}

/** OpenAI: requests and tokens per minute. */
export const readOpenAi: Dialect = (headers, ctx) => ({
  dimensions: collect(readOpenAiNames(headers, ctx, fixedWindow(MINUTE), fixedWindow(MINUTE))),
});

/** Groq: OpenAI's names, but `-requests` is per DAY and `-tokens` per minute (docs/providers.md#groq). */
export const readGroq: Dialect = (headers, ctx) => ({
  dimensions: collect(readOpenAiNames(headers, ctx, fixedWindow(DAY), fixedWindow(MINUTE))),
});

const AZURE_DEFAULT = inferredWindow({ windowMs: MINUTE, windowSource: "dialect" });

/**
 * Azure OpenAI: per minute unless the triple says otherwise. Azure enforces requests over
 * 1 s or 10 s sub-windows (`x-ratelimit-limit-requests: 20` on a 120 RPM deployment), and
 * the triple is what reveals it.
 */
export const readAzure: Dialect = (headers, ctx) => ({
  dimensions: collect(readOpenAiNames(headers, ctx, AZURE_DEFAULT, AZURE_DEFAULT)),
});
