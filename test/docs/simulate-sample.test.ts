import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./snippets.js";

// docs/simulate.md opens with two commands and what they print: run them as printed (the CLI
// from src/ instead of the installed bin) and compare, so that the sample cannot drift.

const page = readFileSync(`${ROOT}docs/simulate.md`, "utf8");
const [, commands = "", printed = ""] = /```sh\n([\s\S]*?)```\n\n```\n([\s\S]*?)```/.exec(page) ?? [];
const dir = mkdtempSync(path.join(tmpdir(), "llm-limiter-simulate-doc-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/simulate.md's first example", () => {
  it("prints what the page says it prints", () => {
    const cli = [`${ROOT}node_modules/.bin/tsx`, `${ROOT}src/cli.ts`].map((p) => JSON.stringify(p)).join(" ");
    const script = commands.replaceAll("npx llm-limiter", cli);
    expect(script).toContain(`${cli} simulate`);
    const output = execFileSync("bash", ["-e", "-c", `${script}\n`], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    const [summary = "", reportLine = ""] = printed.split(/\n(?=Report written)/);
    expect(output.trimEnd()).toBe(summary.trimEnd());
    expect(reportLine.trim()).toBe("Report written to report.html");
  }, 60_000);
});
