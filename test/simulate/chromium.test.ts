/**
 * Opens the simulate report in real headless Chromium (Debian's `chromium` package, which
 * `.ci/run` installs): every chart is laid out with a non-zero box, the console shows no
 * error, and the page asks the network for nothing. Without Chromium the test fails under
 * CI=true and is skipped elsewhere.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { renderReport, simulate, type WorkloadCall } from "../../src/simulate/index.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
const inCi = process.env.CI === "true";

if (!present && !inCi) {
  console.warn(
    `\n[llm-limiter] ${CHROMIUM} not found: the report's browser test is SKIPPED (apt-get install chromium).\n`,
  );
}

/** Bursts of calls every 10 s onto a small key: every chart has something to draw. */
const WORKLOAD: WorkloadCall[] = Array.from({ length: 90 }, (_, i) => ({
  at: Math.floor(i / 30) * 10_000,
  prompt: 300 + (i % 7) * 100,
  maxTokens: 512,
  completion: 50 + (i % 5) * 40,
}));

describe.runIf(present || inCi)("the simulate report in headless Chromium", () => {
  it("lays out every chart, logs no error and fetches nothing", async () => {
    expect(present, `Chromium is required under CI=true: apt-get install chromium (looked for ${CHROMIUM})`).toBe(true);
    const html = renderReport(await simulate(WORKLOAD, { rpm: 40, tpm: 30_000 }));
    const dir = await mkdtemp(join(tmpdir(), "llm-limiter-report-"));
    const file = join(dir, "report.html");
    await writeFile(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("request", (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      const charts = await page.locator("figure.chart svg").all();
      expect(charts).toHaveLength(5);
      for (const chart of charts) {
        const box = await chart.boundingBox();
        expect(box?.width).toBeGreaterThan(0);
        expect(box?.height).toBeGreaterThan(0);
        // Each line is drawn: a polyline with a visible extent.
        const line = await chart.locator("polyline").first().boundingBox();
        expect((line?.width ?? 0) + (line?.height ?? 0)).toBeGreaterThan(0);
      }
      expect(problems).toEqual([]);
      expect(requests).toEqual([pathToFileURL(file).href]);
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
