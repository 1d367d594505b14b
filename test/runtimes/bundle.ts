/**
 * Bundles the smoke script (smoke.ts) with the package's sources into one file per runtime, in a temp dir, with
 * esbuild (tsup's): the package's entries from src/, the AI SDK from node_modules, for the browser platform, so
 * that an import of a Node built-in fails the build.
 */
import { build } from "esbuild";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Each runtime's way in: an ES module that prints the result, a Worker, or a script for edge-runtime's VM. */
const HARNESSES = {
  /** Deno and Bun: prints the result as one JSON line. */
  module: `import { smoke } from "./smoke.ts"; console.log(JSON.stringify(await smoke()));`,
  /** workerd: answers each request with a run of its own, as a Worker built per request would. */
  worker: `import { smoke } from "./smoke.ts";
export default { async fetch() { return Response.json(await smoke()); } };`,
  /**
   * workerd: the Worker of examples/workers/openai-worker.ts on rpm 5, its store one per isolate (the in-process
   * one of the tests, in place of Redis over HTTP).
   */
  example: `import { openAIWorker } from "../../../examples/workers/openai-worker.ts";
import { InProcessStore } from "../../shared/in-process-store.ts";
export default openAIWorker(() => new InProcessStore(() => performance.now()), { rpm: 5 });`,
  /**
   * workerd: the Durable Object of examples/workers/limiter-object.ts on rpm 600 from empty (one call per 100 ms),
   * so that its queue's waits span the object's requests.
   */
  object: `import { limitedWorker, limiterObject } from "../../../examples/workers/limiter-object.ts";
export const LimiterObject = limiterObject({ rpm: 600, initial: "empty" });
export default limitedWorker;`,
  /**
   * edge-runtime: the route of examples/edge/ai-route.ts on rpm 3 against the simulator at `baseURL`, its store
   * one per instance (the tests' in-process one); `answer(count)` sends it `count` requests at once.
   */
  route: `import { createOpenAI } from "@ai-sdk/openai";
import { aiRoute } from "../../../examples/edge/ai-route.ts";
import { InProcessStore } from "../../shared/in-process-store.ts";
globalThis.answer = async (baseURL, count) => {
  const pending = [];
  const POST = aiRoute({
    store: () => new InProcessStore(() => performance.now()),
    openai: createOpenAI({ apiKey: "sk-test", baseURL }),
    waitUntil: (promise) => pending.push(promise),
    limits: { rpm: 3 },
  });
  const post = () => POST(new Request("https://app.test/api/answer", { method: "POST", body: "Hi" }));
  const responses = await Promise.all(Array.from({ length: count }, post));
  const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.text() })));
  await Promise.all(pending);
  return JSON.stringify(answers);
};`,
  /** edge-runtime: a script (the VM evaluates no modules) that leaves \`smoke\` on the global object. */
  script: `import { smoke } from "./smoke.ts"; globalThis.smoke = smoke;`,
} as const;

export type Harness = keyof typeof HARNESSES;

/** A temp dir with `<harness>.js` for each harness. */
export async function bundleSmoke(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "llm-limiter-runtimes-"));
  for (const [harness, contents] of Object.entries(HARNESSES)) {
    const result = await build({
      stdin: { contents, resolveDir: fileURLToPath(new URL("./smoke/", import.meta.url)), loader: "ts" },
      bundle: true,
      write: false,
      format: harness === "script" || harness === "route" ? "iife" : "esm",
      platform: "browser",
      // Workers and the Edge runtime resolve packages by these conditions.
      conditions: ["workerd", "worker", "edge-light", "browser"],
      target: "es2022",
      // No Node built-in is left out: a bundle that needed one would fail to build here.
      external: ["@sinonjs/fake-timers"],
      logLevel: "silent",
    });
    writeFileSync(join(dir, `${harness}.js`), result.outputFiles[0]!.text);
  }
  return dir;
}
