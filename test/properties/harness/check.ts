/**
 * A cheap assertion for the checks run thousands of times per property (vitest's
 * `expect` costs far more per call); the message is built only on failure.
 */
export function check(ok: boolean, message: () => string): asserts ok {
  if (!ok) throw new Error(message());
}
