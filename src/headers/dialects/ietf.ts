import { SECOND } from "../bounds.js";
import { fixedWindow, inferredWindow, readTriple, toDimension, tripleNames, type WindowRule } from "../dimension.js";
import type { Span } from "../durations.js";
import type { HeaderMap } from "../normalize.js";
import type { TimeContext } from "../reset.js";
import { parseList, type BareItem, type ListMember } from "../structured.js";
import type { ReportedDimension, ReportedUnit } from "../types.js";
import { UNKNOWN_WINDOW } from "../window.js";
import type { Dialect, DialectResult } from "./dialect.js";

const INFER = inferredWindow(UNKNOWN_WINDOW);

/** The draft's quota units the limiter meters; `content-bytes` and unknown units are not. */
const UNITS: ReadonlyMap<string, ReportedUnit> = new Map([
  ["requests", "requests"],
  ["concurrent-requests", "concurrency"],
]);

function num(item: BareItem | undefined): number | undefined {
  return typeof item === "number" ? item : undefined;
}

/** `w` (seconds) as a fixed window; without it, the triple is asked. */
function windowOf(member: ListMember): WindowRule {
  const w = num(member.params.get("w"));
  return w !== undefined && w > 0 ? fixedWindow(w * SECOND) : INFER;
}

/** `t` (delta-seconds until some quota returns) as a span. */
function secondsSpan(t: number | undefined): Span | undefined {
  return t !== undefined && t >= 0 && Number.isFinite(t) ? { ms: t * SECOND, resolutionMs: SECOND } : undefined;
}

/**
 * draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy` names each policy with its
 * quota `q`, window `w` (s) and unit `qu`; `RateLimit` gives each named policy's remaining
 * `r` and `t`, the seconds until some quota returns. One dimension per policy; a `RateLimit`
 * member naming no policy gives no dimension (its unit and quota are unknown), only a retry
 * hint. When two policies would share a name, the later one is named `<name>:<policy>`.
 */
function readPolicies(policyField: string, currentField: string): DialectResult {
  const current = new Map<string, ListMember["params"]>();
  let retryAfterMs: number | undefined;
  for (const member of parseList(currentField) ?? []) {
    if (typeof member.value === "string" && !current.has(member.value)) current.set(member.value, member.params);
    // An exhausted policy implies a retry delay; all of them must return. (Retry-After, read elsewhere, wins.)
    const t = secondsSpan(num(member.params.get("t")));
    if (num(member.params.get("r")) === 0 && t !== undefined) retryAfterMs = Math.max(retryAfterMs ?? 0, t.ms);
  }
  const dimensions: Record<string, ReportedDimension> = {};
  for (const policy of parseList(policyField) ?? []) {
    const unit = UNITS.get(String(policy.params.get("qu") ?? "requests"));
    if (typeof policy.value !== "string" || unit === undefined) continue;
    const now = current.get(policy.value);
    const remaining = num(now?.get("r"));
    const reset = secondsSpan(num(now?.get("t")));
    const entry = toDimension({ unit, limit: num(policy.params.get("q")), remaining, reset }, windowOf(policy));
    if (entry === undefined) continue;
    const name = Object.hasOwn(dimensions, entry[0]) ? `${entry[0]}:${policy.value}` : entry[0];
    if (Object.hasOwn(dimensions, name)) continue;
    dimensions[name] = entry[1];
  }
  return retryAfterMs === undefined ? { dimensions } : { dimensions, retryAfterMs };
}

/**
 * Older drafts: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (delta
 * seconds), read as one requests budget. Its window is the limit's own `w` parameter
 * (`100, 100;w=60`), else an old-style `RateLimit-Policy` member with the same quota
 * (`10;w=1, 50;w=60`), else inferred.
 */
function readLegacy(headers: HeaderMap, ctx: TimeContext): DialectResult {
  const reading = readTriple(headers, "requests", tripleNames("ratelimit"), ctx);
  const limitMembers = parseList(headers.get("ratelimit-limit") ?? "") ?? [];
  const limit = reading.limit ?? num(limitMembers[0]?.value);
  const described = [...limitMembers, ...(parseList(headers.get("ratelimit-policy") ?? "") ?? [])].find(
    (m) => m.value === limit && m.params.has("w"),
  );
  const entry = toDimension({ ...reading, limit }, described === undefined ? INFER : windowOf(described));
  const dimensions = entry === undefined ? {} : { [entry[0]]: entry[1] };
  const exhausted = entry?.[1].remaining === 0 ? reading.reset?.ms : undefined;
  return exhausted === undefined ? { dimensions } : { dimensions, retryAfterMs: exhausted };
}

/** The IETF draft's fields, the current `RateLimit-Policy` / `RateLimit` pair first, else the older separate fields. */
export const readIetf: Dialect = (headers, ctx) => {
  const current = readPolicies(headers.get("ratelimit-policy") ?? "", headers.get("ratelimit") ?? "");
  const legacy = readLegacy(headers, ctx);
  return Object.keys(current.dimensions).length > 0 || Object.keys(legacy.dimensions).length === 0 ? current : legacy;
};
