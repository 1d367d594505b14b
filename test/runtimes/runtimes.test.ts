/**
 * The package in the runtimes LLM apps run on besides Node, from their npm packages (devDependencies): Deno,
 * Bun, workerd (Cloudflare Workers, through Miniflare 4 on Node 22) and Vercel's edge-runtime. One bundle of
 * smoke/smoke.ts per runtime (bundle.ts) runs admission, header sync, `limiter.fetch()` against the simulator in
 * process, the AI SDK middleware and `flush()`; each must see what Node sees.
 *
 * They run once per CI run: on Node 20 (the `npm test` of .ci/run; the other majors run the same bundles), or
 * wherever LLM_LIMITER_RUNTIMES=1, and never with LLM_LIMITER_RUNTIMES=0. Under CI=true a missing runtime fails.
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { bundleSmoke } from "./bundle.js";
import type { SmokeResult } from "./smoke/smoke.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const nodeMajor = Number(process.versions.node.split(".")[0]);
const wanted = process.env.LLM_LIMITER_RUNTIMES;
const enabled = wanted === "1" || (wanted !== "0" && nodeMajor === 20);

/** What Node sees (the first test runs the same bundle on it). */
const EXPECTED: SmokeResult = {
  admission: ["admitted", "admitted", "WAIT_TIMEOUT"],
  syncedAvailable: 0,
  fetchStatuses: [200, 200, 200],
  learned: ["rpm", "tpm"],
  aiText: "hello from the model",
  aiSettledTokens: 50,
  flushed: true,
  warnings: [],
};

/** A runtime's binary or package, or a failure under CI and a skip elsewhere when it is missing. */
function present(path: string, skip: () => void): void {
  if (existsSync(path)) return;
  if (process.env.CI === "true") throw new Error(`${path} is missing: run npm ci`);
  skip();
}

/** What miniflare-run.mjs prints. */
interface Workerd {
  readonly answers: readonly { readonly status: number; readonly body: string }[];
  readonly upstream: number;
  readonly upstreamSpreadMs: number;
}

const bin = (name: string): string => join(root, "node_modules", ".bin", name);
const TIMEOUT_MS = 120_000;

describe.runIf(enabled).concurrent(
  "the smoke run",
  () => {
    let dir: string;
    beforeAll(async () => {
      dir = await bundleSmoke();
    }, TIMEOUT_MS);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("on Node, as the others must", async () => {
      const { stdout } = await run(process.execPath, [join(dir, "module.js")]);
      expect(JSON.parse(stdout)).toEqual(EXPECTED);
    });

    it("on Deno", async ({ skip }) => {
      present(bin("deno"), skip);
      // No permission flags: the package asks for none.
      const { stdout } = await run(bin("deno"), ["run", "--quiet", "--no-prompt", join(dir, "module.js")]);
      expect(JSON.parse(stdout)).toEqual(EXPECTED);
    });

    it("on Bun", async ({ skip }) => {
      present(bin("bun"), skip);
      const { stdout } = await run(bin("bun"), [join(dir, "module.js")]);
      expect(JSON.parse(stdout)).toEqual(EXPECTED);
    });

    it("on Vercel's edge-runtime", async ({ skip }) => {
      present(join(root, "node_modules", "edge-runtime"), skip);
      const { stdout } = await inEdgeRuntime("script.js", "smoke().then(JSON.stringify)");
      expect(JSON.parse(stdout)).toEqual(EXPECTED);
    });

    /** Evaluates a script bundle of `dir`, then `expression`, in edge-runtime; what it resolves to. */
    async function inEdgeRuntime(bundle: string, expression: string): Promise<{ stdout: string }> {
      return run(process.execPath, [join(root, "test/runtimes/edge-run.mjs"), join(dir, bundle), expression]);
    }

    it("the Edge route of docs/runtimes.md, 6 requests at once: a limiter each over one store keeps rpm 3", async ({
      skip,
    }) => {
      present(join(root, "node_modules", "edge-runtime"), skip);
      const provider = createProvider({ rpm: 3, tpm: 100_000, latencyMs: 5, seed: 1 });
      const server = await provider.listen();
      try {
        const { stdout } = await inEdgeRuntime("route.js", `answer(${JSON.stringify(`${server.url}/v1`)}, 6)`);
        const answers = JSON.parse(stdout) as { status: number; body: string }[];
        expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
        expect(provider.stats()).toMatchObject({ served: 3, rejected: 0 });
      } finally {
        await server.close();
      }
    });

    /** Runs a Worker bundle of `dir` in workerd (Miniflare 4, on Node 22), sending it `count` requests at once. */
    async function inWorkerd(bundle: string, count: number, object = false): Promise<Workerd> {
      // Miniflare 4 needs Node 22: the npm registry's `node` package where this is older.
      const [command, args] = nodeMajor >= 22 ? [process.execPath, []] : ["npx", ["-y", "node@22"]];
      const runner = join(root, "test/runtimes/miniflare-run.mjs");
      const { stdout } = await run(
        command,
        [...args, runner, join(dir, bundle), String(count), object ? "object" : ""],
        {
          timeout: TIMEOUT_MS,
        },
      );
      return JSON.parse(stdout) as Workerd;
    }

    it("on workerd, 8 requests at once in one isolate: each as on Node, one warning of isolated buckets", async ({
      skip,
    }) => {
      present(join(root, "node_modules", "miniflare"), skip);
      const { answers } = await inWorkerd("worker.js", 8);
      const results = answers.map((a) => JSON.parse(a.body) as SmokeResult);
      expect(results.map((r) => ({ ...r, warnings: [] }))).toEqual(Array(8).fill(EXPECTED));
      // A limiter without a store warns once per isolate, not once per request.
      expect(results.flatMap((r) => r.warnings)).toEqual(["IsolatedLimiterWarning"]);
    });

    it("the Worker of docs/runtimes.md, 8 requests at once: a limiter each over one store keeps rpm 5", async ({
      skip,
    }) => {
      present(join(root, "node_modules", "miniflare"), skip);
      const { answers, upstream } = await inWorkerd("example.js", 8);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      expect(upstream).toBe(5);
      const answered = answers.filter((a) => a.status === 200).map((a) => JSON.parse(a.body) as { object: string });
      expect(answered.map((a) => a.object)).toEqual(Array(5).fill("chat.completion"));
    });

    it("the Durable Object of docs/runtimes.md, 8 requests at once: one limiter spaces them at rpm 600", async ({
      skip,
    }) => {
      present(join(root, "node_modules", "miniflare"), skip);
      const { answers, upstream, upstreamSpreadMs } = await inWorkerd("object.js", 8, true);
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(upstream).toBe(8);
      // From empty, one call per 100 ms (the first at 100 ms): the queue's waits spanned the object's requests.
      expect(upstreamSpreadMs).toBeGreaterThanOrEqual(650);
    });
  },
  TIMEOUT_MS,
);
