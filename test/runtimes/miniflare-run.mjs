/* global process, console, performance, Response -- run by Node */
// Runs the Worker bundle (argv[2]) in workerd through Miniflare 4 (which needs Node >= 22: the test starts this
// under it) and prints, as one JSON line, the status and body of the answers to `argv[3]` requests sent at
// once (one isolate, so they share the module's state, as concurrent requests to one Worker do), and the calls
// that reached "OpenAI" (the Worker's outbound fetches, answered here as OpenAI's chat completions would be)
// and the time from the first of them to the last.
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";

const [script, count] = [readFileSync(process.argv[2], "utf8"), Number(process.argv[3] ?? 1)];
// The module listed, not traced: Miniflare would try to resolve testing's `import("node:http")`, which only
// listen() reaches. No nodejs_compat flag: the package must run without it.
let upstream = 0;
let first = Infinity;
let last = -Infinity;
const mf = new Miniflare({
  modules: [{ type: "ESModule", path: "worker.js", contents: script }],
  compatibilityDate: "2025-09-01",
  // argv[4] "object": the bundle exports the Durable Object class LimiterObject, bound as LIMITER.
  ...(process.argv[4] === "object" ? { durableObjects: { LIMITER: "LimiterObject" } } : {}),
  bindings: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "https://openai.test/v1" },
  outboundService: () => {
    upstream++;
    [first, last] = [Math.min(first, performance.now()), performance.now()];
    const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
    const message = { role: "assistant", content: "Hello!" };
    const choices = [{ index: 0, message, finish_reason: "stop" }];
    return Response.json({
      id: `chatcmpl-${upstream}`,
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices,
      usage,
    });
  },
});
try {
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await mf.dispatchFetch("http://worker.test/", { method: "POST", body: "Hi" });
      return { status: response.status, body: await response.text() };
    }),
  );
  console.log(JSON.stringify({ answers, upstream, upstreamSpreadMs: last - first }));
} finally {
  await mf.dispose();
}
