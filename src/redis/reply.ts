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

/** A number sent by a script. */
export function number(field: Field): number {
  const value = typeof field === "number" ? field : Number(field);
  if (!Number.isFinite(value)) throw new TypeError(`Unexpected number from the Redis store script: ${field}`);
  return value;
}
