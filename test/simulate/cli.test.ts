import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../../src/cli.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "llm-limiter-simulate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a workload file of `lines` and returns its path. */
function workload(name: string, lines: readonly string[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

const BURST = workload(
  "burst.jsonl",
  Array.from({ length: 30 }, (_, i) => JSON.stringify({ at: i * 100, prompt: 400, maxTokens: 600, completion: 200 })),
);

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["--import", "tsx", CLI, ...args], { encoding: "utf8" });
}

describe("llm-limiter simulate", () => {
  it("prints both runs and writes the HTML report; stderr, not a terminal, gets no progress line", () => {
    const out = join(dir, "report.html");
    const { status, stdout, stderr } = run("simulate", BURST, "--rpm", "10", "--tpm", "50_000", "--out", out);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^30 calls; no client can finish before 2:0\d\.\d \(rpm\)$/m);
    expect(stdout).toMatch(/^llm-limiter +30 of 30 completed, 0 failed, 0 429s in 30 attempts/m);
    expect(stdout).toMatch(/^no limiter +\d+ of 30 completed, \d+ failed, [1-9][\d,]* 429s/m);
    expect(stderr).toBe(`Report written to ${out}\n`);
    expect(readFileSync(out, "utf8")).toMatch(/^<!doctype html>[\s\S]*<svg [\s\S]*<\/html>\n$/);
  });

  it("prints the whole result with --json, a fixed latency and sampling as given", () => {
    const { status, stdout } = run("simulate", BURST, "--rpm", "10", "--latency", "2s", "--sample", "5s", "--json");
    expect(status).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.budgets).toEqual({ rpm: 10 });
    expect(result.sampleMs).toBe(5_000);
    expect(result.limiter.summary.rejected).toBe(0);
    expect(result.limiter.samples[1].t).toBe(5_000);
    // The first call: admitted on arrival, answered 2 s later.
    expect(result.limiter.outcomes[0].endedAt).toBe(2_000);
  });

  it("prints usage with simulate --help, and both commands with --help", () => {
    expect(run("simulate", "--help").stdout).toMatch(/^Usage: llm-limiter simulate <workload.jsonl>/);
    const both = run("--help");
    expect(both.status).toBe(0);
    expect(both.stdout).toContain("Usage: llm-limiter plan");
    expect(both.stdout).toContain("Usage: llm-limiter simulate");
  });

  it.each([
    [["--rpm", "10"], /missing the workload file/],
    [[BURST], /at least one budget is required/],
    [[BURST, "--rpm", "ten"], /--rpm must be a number, got "ten"/],
    [[BURST, "--rpm", "10", "--dialect", "groq"], /--dialect must be openai or anthropic/],
    [[BURST, "--rpm", "10", "--latency", "soon"], /--latency must be a duration/],
    [[BURST, "--rpm", "10", "--concurrency", "1.5"], /concurrency must be a whole number >= 1/],
    [[BURST, "--rpm", "10", "--rmp", "3"], /Unknown option '--rmp'/],
    [[join(dir, "missing.jsonl"), "--rpm", "10"], /cannot read .*missing\.jsonl: ENOENT/],
    [
      [
        workload("bad.jsonl", ['{"at": 0, "prompt": 1, "maxTokens": 2, "completion": 1}', '{"at": 0, "prompt": 1}']),
        "--rpm",
        "1",
      ],
      /bad\.jsonl: line 2: "maxTokens" is required/,
    ],
  ])("exits 2 with a clear error for %o", (args, message) => {
    const { status, stdout, stderr } = run("simulate", ...args);
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).toContain("Run llm-limiter simulate --help");
  });
});
