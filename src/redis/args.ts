import { positive } from "../core/values.js";
import type { SharedDimension, SharedLayout } from "../store/shared-store.js";

/**
 * A number as a script argument. Non-finite numbers are refused: Lua's
 * `tonumber` would read "Infinity" or "NaN" and corrupt the shared state.
 */
export function num(what: string, value: number): string {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${what} must be a finite number, got ${String(value)}`);
  }
  return String(value);
}

/** The layout as the scripts read it: fraction, count, then name, limit, windowMs, capacity per dimension. */
export function layoutArgs(layout: SharedLayout, dimensions: readonly SharedDimension[] = layout.dimensions): string[] {
  const args = [num("initialFraction", layout.initialFraction), String(dimensions.length)];
  for (const { name, limit, windowMs, capacity } of dimensions) {
    args.push(
      name,
      String(positive(`${name}.limit`, limit)),
      String(positive(`${name}.windowMs`, windowMs)),
      String(positive(`${name}.capacity`, capacity)),
    );
  }
  return args;
}

/** One finite number per dimension, aligned with the layout; an absent one (`undefined`) goes as empty. */
export function perDimension(what: string, layout: SharedLayout, values: readonly (number | undefined)[]): string[] {
  if (values.length !== layout.dimensions.length) {
    throw new RangeError(
      `${what}: expected ${layout.dimensions.length} values (one per dimension), got ${values.length}`,
    );
  }
  return values.map((value, i) => (value === undefined ? "" : num(`${what}[${i}]`, value)));
}
