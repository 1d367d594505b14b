/** Checks of option values, and how error messages show a wrong one. */

/** A value as error messages show it: its type, and the value where that helps (`string "100"`). */
export function shown(value: unknown): string {
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case "number":
    case "undefined":
      return String(value);
    case "boolean":
    case "bigint":
      return `${typeof value} ${String(value)}`;
    case "object":
      return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
    default:
      return `a ${typeof value}`;
  }
}

/** The error for a non-number where a number is required: a string "100" is a type mistake, not a range one. */
export function notANumber(what: string, value: unknown): TypeError {
  return new TypeError(`${what} must be a number, got ${shown(value)}`);
}

/** The error for an option key that is not one of `known` (typos such as `tmp`). */
export function unknownOption(where: string, key: string, known: readonly string[]): TypeError {
  return new TypeError(`${where}: unknown option "${key}"; the options are ${known.join(", ")}`);
}

/** Throws TypeError unless `value` is a number, RangeError unless it is finite and > 0. */
export function positive(what: string, value: unknown): number {
  if (typeof value !== "number") throw notANumber(what, value);
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${what} must be a finite number > 0, got ${value}`);
  return value;
}

/** {@link positive}, and a RangeError above `max` (a bound that keeps the arithmetic on it finite and exact). */
export function positiveAtMost(what: string, value: unknown, max: number): number {
  const n = positive(what, value);
  if (n > max) throw new RangeError(`${what} must be at most ${max}, got ${n}`);
  return n;
}

export function plainObject(what: string, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${what} must be an object, got ${shown(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Sets `record[key]` as an own, enumerable property, even for `"__proto__"`, which a plain
 * assignment takes as the object's prototype (a group member of that name vanished from a snapshot).
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__")
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
