import { MAX_HEADERS, MAX_NAME_LENGTH, MAX_VALUE_LENGTH } from "./bounds.js";
import type { HeaderInput, HeaderValue } from "./types.js";

/** Lower-cased header name -> trimmed value, every value at most {@link MAX_VALUE_LENGTH} chars. */
export type HeaderMap = ReadonlyMap<string, string>;

/**
 * The input's entries, lazily: Headers, Map and arrays of pairs iterate as `[name, value]`; objects by
 * own keys. `Object.keys`, not `for...in`: a prototype's keys, however many, are never walked (the engine
 * lists an object's own keys in one pass before the first; that pass is the one cost not bounded here).
 */
function* entriesOf(input: object): Generator<readonly [unknown, unknown]> {
  if (Symbol.iterator in input) {
    for (const entry of input as Iterable<unknown>) {
      yield Array.isArray(entry) ? [entry[0], entry[1]] : [undefined, undefined];
    }
  } else {
    const record = input as Record<string, unknown>;
    for (const name of Object.keys(record)) yield [name, record[name]];
  }
}

/**
 * Reads any {@link HeaderInput} into a {@link HeaderMap}. Repeated names are joined with
 * `", "` as fetch's `Headers` does. Work is bounded: at most {@link MAX_HEADERS} entries are
 * read, and an over-long value is dropped by its length alone, without being scanned (a
 * header that grows over-long from repeats is dropped whole, not read in part).
 */
export function normalizeHeaders(input: HeaderInput | null | undefined): HeaderMap {
  const out = new Map<string, string>();
  if (input === null || typeof input !== "object") return out;
  const dropped = new Set<string>();
  let read = 0;
  for (const [name, value] of entriesOf(input)) {
    if (typeof name === "string" && name.length <= MAX_NAME_LENGTH) {
      const key = name.toLowerCase();
      const text = dropped.has(key) ? undefined : valueText(value as HeaderValue);
      const previous = out.get(key);
      const joined = text === null || previous === undefined || text === undefined ? text : `${previous}, ${text}`;
      if (joined === null || (joined !== undefined && joined.length > MAX_VALUE_LENGTH)) {
        out.delete(key);
        dropped.add(key);
      } else if (joined !== undefined) {
        out.set(key, joined);
      }
    }
    if (++read >= MAX_HEADERS) break;
  }
  return out;
}

/**
 * A header value as trimmed text; `undefined` when there is none, `null` when it is too
 * long (so the whole header is dropped).
 */
function valueText(value: HeaderValue): string | null | undefined {
  if (typeof value === "string") return value.length > MAX_VALUE_LENGTH ? null : value.trim();
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (!Array.isArray(value)) return undefined;
  const parts = value as readonly unknown[];
  let joined: string | undefined;
  for (let i = 0; i < parts.length && i < MAX_HEADERS; i++) {
    const part = parts[i];
    if (typeof part !== "string") continue;
    if (part.length > MAX_VALUE_LENGTH) return null;
    joined = joined === undefined ? part.trim() : `${joined}, ${part.trim()}`;
    if (joined.length > MAX_VALUE_LENGTH) return null;
  }
  return joined;
}
