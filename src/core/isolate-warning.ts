/**
 * Whether this is Cloudflare Workers, which sets `navigator.userAgent` to exactly this
 * (developers.cloudflare.com/workers/runtime-apis/web-standards/#navigatoruseragent).
 */
export function onCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers";
}

/** Once per isolate: a limiter built per request would otherwise warn on every request. */
let warned = false;

/**
 * Warns, once per isolate, when a limiter without a store is built on Workers: each isolate then keeps its
 * own buckets, and Cloudflare runs as many isolates as it likes, so the provider sees the quota times their
 * number. See docs/runtimes.md.
 */
export function warnOfIsolatedBuckets(warn: (warning: Error) => void): void {
  if (warned || !onCloudflareWorkers()) return;
  warned = true;
  const warning = new Error(
    "llm-limiter: a limiter without a store on Cloudflare Workers keeps its buckets in this isolate, and " +
      "every isolate keeps its own: the provider sees your quota times the number of isolates. Pass a shared " +
      "store (Redis over HTTP, or a Durable Object holding the limiter). See docs/runtimes.md.",
  );
  warning.name = "IsolatedLimiterWarning";
  warn(warning);
}
