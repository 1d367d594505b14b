import type { Counting } from "./types.js";

/** Tokens each message costs beyond its content (role and separators), as OpenAI's cookbook counts them. */
export const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the reply, once per request. */
export const REPLY_PRIMING_TOKENS = 3;

/** Keys whose values are encoded payloads (base64 audio, files), not prompt text: a data URL would count as text. */
const PAYLOAD_KEYS = new Set(["data", "file_data"]);

/** A string's tokens; anything else counts nothing. */
export function stringTokens(counting: Counting, value: unknown): number {
  return typeof value === "string" && value !== "" ? counting.text(value) : 0;
}

/**
 * Objects nested deeper than this are counted as one short placeholder: real schemas and arguments nest
 * a few dozen levels at most, and JSON.stringify recursing 20,000 levels overflows the stack.
 */
export const MAX_JSON_DEPTH = 100;
/** What stands in the JSON text for an object nested past {@link MAX_JSON_DEPTH}. */
const TOO_DEEP = "…";

/**
 * The tokens of a value as JSON text (tool schemas, tool-call arguments, unknown content parts), payloads
 * left out, nesting cut at {@link MAX_JSON_DEPTH}.
 */
export function jsonTokens(counting: Counting, value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "string") return stringTokens(counting, value);
  // Each object's depth, from its holder's (the replacer's `this`): what lies too deep is never descended into.
  const depths = new Map<object, number>();
  const json = JSON.stringify(value, function (this: object, key: string, v: unknown) {
    if (PAYLOAD_KEYS.has(key)) return undefined;
    if (typeof v !== "object" || v === null) return v;
    const depth = (depths.get(this) ?? 0) + 1;
    if (depth > MAX_JSON_DEPTH) return TOO_DEEP;
    depths.set(v, depth);
    return v;
  });
  return json === undefined ? 0 : stringTokens(counting, json);
}

/** The output cap times the choices asked for; the default when the body names no cap. */
export function outputReservation(counting: Counting, cap: unknown, choices: unknown = 1): number {
  const tokens = isCount(cap) ? cap : counting.defaultMaxTokens;
  return tokens * (isCount(choices) && choices >= 1 ? choices : 1);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/** A plain object, for reading a body's fields. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
