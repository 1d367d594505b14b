import { DIALECTS } from "./dialects/index.js";
import type { ProviderName } from "./types.js";

/**
 * Every name a `provider` option takes: the dialect table's, which the type keeps in step with {@link ProviderName}.
 */
export const PROVIDER_NAMES = Object.keys(DIALECTS).filter((name) => name !== "unknown") as readonly ProviderName[];

/**
 * `value` if it names a known provider; else a TypeError listing them (a typo such as `"opneai"` would read the wrong
 * dialect).
 */
export function checkProvider(value: unknown): ProviderName {
  if (PROVIDER_NAMES.includes(value as ProviderName)) return value as ProviderName;
  const given = typeof value === "string" ? JSON.stringify(value) : String(value);
  throw new TypeError(`provider must be one of ${PROVIDER_NAMES.join(", ")}; got ${given}`);
}
