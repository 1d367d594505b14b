/** A script reply that is a list of `length` strings (numbers travel as strings to keep fractions). */
export function strings(reply: unknown, length: number): string[] {
  if (!Array.isArray(reply) || reply.length !== length || !reply.every((x) => typeof x === "string")) {
    throw new TypeError(`Unexpected reply from the Redis store script: ${JSON.stringify(reply)}`);
  }
  return reply as string[];
}

/** A number sent by a script. */
export function number(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new TypeError(`Unexpected number from the Redis store script: ${text}`);
  return value;
}
