import { StoreReplyError } from "./errors.js";

/** One field of a script's reply: a string, or an integer (a script sends a whole number as one). */
export type Field = string | number;

/** A script reply that is a list of `length` fields (numbers travel as strings to keep fractions, or as integers). */
export function fields(reply: unknown, length: number): Field[] {
  if (
    !Array.isArray(reply) ||
    reply.length !== length ||
    !reply.every((x) => typeof x === "string" || typeof x === "number")
  ) {
    throw new TypeError(`Unexpected reply from the Redis store script: ${JSON.stringify(reply)}`);
  }
  return reply as Field[];
}

/**
 * The error for a reply that {@link fields} or {@link number} threw on: final, as retrying would read the same
 * (a number that is not a finite one, a list of another length), with the reply code `MALFORMED`.
 */
export function malformed(error: unknown, keys: readonly string[]): StoreReplyError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreReplyError(`MALFORMED ${reason}`, "MALFORMED", keys, { cause: error });
}

/** A number sent by a script. */
export function number(field: Field): number {
  const value = typeof field === "number" ? field : Number(field);
  if (!Number.isFinite(value)) throw new TypeError(`Unexpected number from the Redis store script: ${field}`);
  return value;
}
