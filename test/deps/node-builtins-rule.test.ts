/**
 * The lint rule that keeps Node built-ins out of every entry but the CLI's (eslint.config.js) can fail: the
 * project's own config, run on seeded sources placed where they would sit in src/.
 */
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The rule ids and lines each problem of `code` at `filePath` (relative to the root) is reported under. */
async function problems(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return result!.messages.map((m) => `${m.line}: ${m.ruleId}`);
}

const SEEDED = [
  `import { performance } from "node:perf_hooks";`,
  `import { randomUUID } from "crypto";`,
  `export const a = performance.now() + randomUUID().length;`,
  `export const b = Buffer.from("x").length;`,
  `export const c = process.env.HOME;`,
  `setImmediate(() => {});`,
  `setTimeout(() => {}, 1).unref();`,
  `export const d = () => import("node:http");`,
].join("\n");

describe("the rule against Node built-ins", () => {
  it("reports every seeded violation in an entry's file", async () => {
    expect(await problems(SEEDED, "src/core/seeded.ts")).toEqual([
      "1: @typescript-eslint/no-restricted-imports",
      "2: @typescript-eslint/no-restricted-imports",
      "4: no-restricted-globals",
      "5: no-restricted-globals",
      "6: no-restricted-globals",
      "7: no-restricted-syntax",
      "8: no-restricted-syntax",
    ]);
  });

  it("allows what runs everywhere: type imports, globals looked up at run time, a guarded unref", async () => {
    const clean = [
      `import type { ServerResponse } from "node:http";`,
      `export type Res = ServerResponse;`,
      `export const tick = (globalThis as { process?: { nextTick?: unknown } }).process?.nextTick;`,
      `(setTimeout(() => {}, 1) as { unref?: () => void }).unref?.();`,
      `export const id = globalThis.crypto.randomUUID();`,
    ].join("\n");
    expect(await problems(clean, "src/redis/seeded.ts")).toEqual([]);
  });

  it("leaves the CLI's files alone", async () => {
    expect(await problems(SEEDED, "src/cli.ts")).toEqual([]);
    expect(await problems(SEEDED, "src/plan/args.ts")).toEqual([]);
  });
});
