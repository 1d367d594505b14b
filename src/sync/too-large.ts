/** Only the start of a message is looked at. */
const MAX_MESSAGE_LENGTH = 64;

/**
 * Whether a 429's body is the provider's own "request too large": OpenAI refuses a request above
 * the whole tokens-per-minute limit with `Request too large for <model> ... on tokens per min
 * (TPM): Limit 30000, Requested 36000` (a 429 with `rate_limit_exceeded`). That confirms the token
 * limits its headers report: no later response could raise them for that request.
 */
export function saysRequestTooLarge(body: unknown): boolean {
  const root = typeof body === "object" && body !== null ? (body as { error?: unknown }) : undefined;
  const inner = typeof root?.error === "object" && root.error !== null ? (root.error as { message?: unknown }) : root;
  const message = typeof body === "string" ? body : (inner as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && /^request too large\b/i.test(message.slice(0, MAX_MESSAGE_LENGTH));
}
