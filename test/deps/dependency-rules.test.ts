/**
 * The dependency rule (`npm run check:deps`) can fail: the project's own .dependency-cruiser.js, run as CI runs it,
 * on the src/ trees of test/fixtures/deps/ (its paths are relative to where depcruise runs). `seeded/` breaks each
 * rule once; `clean/` uses every allowance and breaks none.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const configUrl = new URL(".dependency-cruiser.js", root);
const config = fileURLToPath(configUrl);
const depcruise = fileURLToPath(new URL("node_modules/dependency-cruiser/bin/dependency-cruise.mjs", root));

interface Violation {
  readonly from: string;
  /** The import's specifier, the same wherever node_modules is. */
  readonly unresolvedTo: string;
  readonly rule: { readonly name: string };
}

/** Runs depcruise on a fixture's src/ as `npm run check:deps` does, printing `outputType`. */
function depcruiseOn(fixture: string, outputType: "json" | "err-long"): { status: number | null; stdout: string } {
  const cwd = fileURLToPath(new URL(`test/fixtures/deps/${fixture}/`, root));
  const args = [depcruise, "src", "--config", config, "--output-type", outputType];
  const { status, stdout, stderr } = spawnSync(process.execPath, args, { cwd, encoding: "utf8" });
  if (!stdout) throw new Error(`depcruise printed nothing: ${stderr}`);
  return { status, stdout };
}

function violationsOf(fixture: string): Violation[] {
  return (JSON.parse(depcruiseOn(fixture, "json").stdout) as { summary: { violations: Violation[] } }).summary
    .violations;
}

const brief = (v: Violation): string => `${v.rule.name}: ${v.from} → ${v.unresolvedTo}`;

describe("the dependency rule", () => {
  let seeded: Violation[];
  beforeAll(() => {
    seeded = violationsOf("seeded");
  });

  it("reports every seeded violation", () => {
    expect(seeded.map(brief).sort()).toEqual([
      "ai-sdk-type-only: src/ai/runtime.ts → ai",
      "file-outside-layers: src/unlisted/emit.ts → ../core/limits.js",
      "layer-admission: src/admission/queue.ts → ../headers/parse.js",
      "layer-ai: src/ai/middleware.ts → ../admission/queue.js",
      "layer-buckets: src/buckets/local.ts → ../headers/parse.js",
      "layer-core: src/core/clock.ts → ../sync/levels.js",
      "layer-estimate: src/estimate/text.ts → ../core/limits.js",
      "layer-events: src/events/hub.ts → ../sync/levels.js",
      "layer-facade: src/limiter.ts → ../test/helper.js",
      "layer-fetch: src/fetch/limited.ts → ../sync/levels.js",
      "layer-group: src/group/group.ts → ../sync/levels.js",
      "layer-headers: src/headers/parse.ts → ../core/limits.js",
      "layer-otel: src/otel/names.ts → ../admission/queue.js",
      "layer-plan: src/plan/args.ts → ../sync/levels.js",
      "layer-pure: src/core/budget.ts → ./clock.js",
      "layer-redis: src/redis/options.ts → ../admission/queue.js",
      "layer-simulate: src/simulate/run.ts → ../sync/levels.js",
      "layer-store: src/store/shared-store.ts → p-queue",
      "layer-sync: src/sync/windows.ts → ../admission/queue.js",
      "layer-testing: src/testing/provider.ts → ../sync/levels.js",
      "layer-testingEntry: src/testing/index.ts → ../plan/args.js",
      "no-circular: src/sync/levels.ts → ./windows.js",
      "otel-api-type-only: src/otel/instrument.ts → @opentelemetry/api",
      "redis-clients-type-only: src/redis/store.ts → ioredis",
    ]);
  });

  it("fails the check on them, naming each", () => {
    const { status, stdout } = depcruiseOn("seeded", "err-long");
    expect(status).toBe(seeded.length);
    for (const v of seeded) expect(stdout).toContain(`error ${v.rule.name}: ${v.from} → `);
  });

  it("seeds a violation of every rule but the unresolvable import", async () => {
    const { forbidden } = (await import(configUrl.href)).default as { forbidden: { name: string }[] };
    const broken = new Set(seeded.map((v) => v.rule.name));
    expect(forbidden.map((rule) => rule.name).filter((name) => !broken.has(name))).toEqual(["not-to-unresolvable"]);
  });

  it("reports nothing on a tree that keeps the rule", () => {
    expect(violationsOf("clean")).toEqual([]);
    expect(depcruiseOn("clean", "err-long").status).toBe(0);
  });
});
