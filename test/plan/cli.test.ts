import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../../src/cli.ts", import.meta.url));
const SEEDS = [
  "plan",
  "--rpm",
  "3000",
  "--tpm",
  "1000000",
  "--prompt",
  "800",
  "--completion",
  "300",
  "--max-tokens",
  "4096",
];

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["--import", "tsx", CLI, ...args], { encoding: "utf8" });
}

describe("llm-limiter plan", () => {
  it("prints the plan as aligned text", () => {
    const { status, stdout } = run(...SEEDS, "--latency", "2s", "--burst", "500");
    expect(status).toBe(0);
    expect(stdout).toMatch(/^binding +tpm allows 909 calls\/min/m);
    expect(stdout).toMatch(/^crossover +333 tokens a request/m);
    expect(stdout).toMatch(/^burst 500 +drains in/m);
  });

  it("prints the plan object with --json, durations in ms", () => {
    const { status, stdout } = run(...SEEDS, "--latency", "500ms", "--json");
    expect(status).toBe(0);
    const plan = JSON.parse(stdout);
    expect(plan.binding.dimension).toBe("tpm");
    expect(plan.inFlight.calls).toBeCloseTo((1_000_000 / 1100) * (0.5 / 60));
    expect(JSON.parse(run(...SEEDS, "--latency", "500", "--json").stdout)).toEqual(plan);
  });

  it("prints usage with --help", () => {
    const { status, stdout } = run("--help");
    expect(status).toBe(0);
    expect(stdout).toContain("Usage: llm-limiter plan");
  });

  it.each([
    [["--rmp", "3"], /Unknown option '--rmp'/],
    [["--latency", "soon"], /--latency must be a duration/],
    [["--burst", "many"], /--burst must be a number/],
    [["--max-tokens", "100"], /maxTokens \(100\) must be >= completion/],
  ])("exits 2 with a clear error for %o", (extra, message) => {
    const { status, stdout, stderr } = run(...SEEDS, ...extra);
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
  });

  it("exits 2 without the command or a required flag", () => {
    expect(run("--rpm", "1").stderr).toContain("missing command: plan");
    expect(run("plan", "--rpm", "1", "--prompt", "1", "--completion", "1").status).toBe(2);
  });
});
