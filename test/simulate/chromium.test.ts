/**
 * Opens the simulate report in real headless Chromium (Debian's `chromium` package, which
 * `.ci/run` installs): every chart is laid out with a non-zero box, the console shows no
 * error, and the page asks the network for nothing; the limiter's lines are painted over the
 * baseline's, every budget shows the key's level beside the limiter's view, and a stall is
 * marked where the limiter held calls while the key had room, and nowhere else. Without
 * Chromium the test fails under CI=true and is skipped elsewhere.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  renderReport,
  simulate,
  type SimulateOptions,
  type SimulationResult,
  type WorkloadCall,
} from "../../src/simulate/index.js";

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

/**
 * 20 calls at once onto 12 RPM. A new limiter probes first (docs/options.md, `initial`): it sends
 * 4 calls and then only what refills (one call in 5 s) until the first answer. Answered after
 * 10 s, the probe holds 16 calls for 5 s while the key has room for 8: a stall. Answered after
 * 100 ms, the probe ends at once and the rest wait on a spent key: no stall.
 */
const PROBED: WorkloadCall[] = Array.from({ length: 20 }, () => ({
  at: 0,
  prompt: 100,
  maxTokens: 100,
  completion: 50,
}));

/**
 * Run in the page (no DOM types here): a point both runs' lines pass through, and which line
 * the browser finds on top there.
 */
const TOP_OF_SHARED_POINT = `(chartId) => {
  const svg = document.querySelector("#" + chartId + " svg");
  // elementFromPoint sees the viewport only.
  svg.scrollIntoView({ block: "center" });
  const line = (name) => [...svg.querySelector('polyline[data-series="' + name + '"]').points];
  const naive = line("no limiter");
  const shared = line("llm-limiter").find((p) => naive.some((q) => q.x === p.x && q.y === p.y));
  if (shared === undefined) return "no shared point";
  const point = new DOMPoint(shared.x, shared.y).matrixTransform(svg.getScreenCTM());
  return document.elementFromPoint(point.x, point.y)?.getAttribute("data-series");
}`;

const requests: string[] = [];
const problems: string[] = [];
let browser: Browser;
let dir: string;

/** The report of a simulation, open in a fresh page; what the page logs or fetches is collected. */
async function open(
  workload: WorkloadCall[],
  options: SimulateOptions,
  name: string,
): Promise<{ page: Page; result: SimulationResult }> {
  const file = join(dir, `${name}.html`);
  const result = await simulate(workload, options);
  await writeFile(file, renderReport(result));
  const page = await browser.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("request", (request) => {
    if (request.url() !== pathToFileURL(file).href) requests.push(request.url());
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  return { page, result };
}

describe.runIf(present || inCi)("the simulate report in headless Chromium", () => {
  beforeAll(async () => {
    expect(present, `Chromium is required under CI=true: apt-get install chromium (looked for ${CHROMIUM})`).toBe(true);
    dir = await mkdtemp(join(tmpdir(), "llm-limiter-report-"));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
  });

  it("lays out every chart, a level chart for each budget, and draws each line", async () => {
    const { page } = await open(WORKLOAD, { rpm: 40, tpm: 30_000 }, "bursts");
    const ids = await page.locator("figure.chart").evaluateAll((figures) => figures.map((f) => f.id));
    expect(ids).toEqual(["levels-rpm", "levels-tpm", "waiting", "admissions", "rejections", "completed"]);
    for (const chart of await page.locator("figure.chart svg").all()) {
      const box = await chart.boundingBox();
      expect(box?.width).toBeGreaterThan(0);
      expect(box?.height).toBeGreaterThan(0);
      for (const line of await chart.locator("polyline").all()) {
        const extent = await line.boundingBox();
        expect((extent?.width ?? 0) + (extent?.height ?? 0)).toBeGreaterThan(0);
      }
      // Named for a screen reader: the caption and a summary of every line.
      expect(await chart.getAttribute("aria-labelledby")).toMatch(/-title .*-desc$/);
      expect(await chart.locator("desc").textContent()).toContain("llm-limiter");
    }
  }, 60_000);

  it("draws, for each budget, the key's level in both runs and the limiter's view beside its key's", async () => {
    const { page } = await open(WORKLOAD, { rpm: 40, tpm: 30_000 }, "levels");
    for (const id of ["levels-rpm", "levels-tpm"]) {
      const names = await page
        .locator(`#${id} polyline`)
        .evaluateAll((lines) => lines.map((l) => l.getAttribute("data-series")));
      expect(names).toEqual(["the key, no limiter", "the key, llm-limiter", "the limiter's view"]);
      // Drift is visible: the limiter's view and its key's level are drawn apart somewhere.
      const [key, view] = await Promise.all(
        ["the key, llm-limiter", "the limiter's view"].map((name) =>
          page.locator(`#${id} polyline[data-series="${name}"]`).getAttribute("points"),
        ),
      );
      expect(view).not.toBe(key);
    }
  }, 60_000);

  it("paints the limiter's line over the baseline's where they meet", async () => {
    const { page } = await open(WORKLOAD, { rpm: 40, tpm: 30_000 }, "overlay");
    for (const id of ["waiting", "admissions", "rejections", "completed"]) {
      const top = await page.evaluate(`(${TOP_OF_SHARED_POINT})(${JSON.stringify(id)})`);
      expect(top, id).toBe("llm-limiter");
    }
  }, 60_000);

  it("marks and labels a stall on every chart when the limiter holds calls the key has room for", async () => {
    const { page } = await open(PROBED, { rpm: 12, latencyMs: 10_000 }, "stall");
    const rows = page.locator("#stall-table tbody tr");
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toMatch(/^stall 10:00\.\d0:04\.\d/);
    for (const chart of await page.locator("figure.chart").all()) {
      const band = chart.locator(".band");
      expect(await band.count()).toBe(1);
      const box = await band.locator("rect").boundingBox();
      const plot = await chart.locator("svg").boundingBox();
      // Over the first few seconds of a run of about 50 s.
      expect(box!.width).toBeGreaterThan(10);
      expect(box!.x + box!.width).toBeLessThan(plot!.x + plot!.width / 4);
      expect(await band.locator("text").textContent()).toBe("stall 1");
      expect(await band.locator("title").textContent()).toMatch(
        /^Stall 1, 0:00\.\d to 0:04\.\d: llm-limiter sent nothing/,
      );
      expect(await chart.locator(".legend").textContent()).toContain("a stall");
    }
  }, 60_000);

  it("marks no stall when the limiter waits only on a spent key", async () => {
    const { page, result } = await open(PROBED, { rpm: 12, latencyMs: 100 }, "no-stall");
    expect(await page.locator(".band").count()).toBe(0);
    expect(await page.locator("#stall-table").count()).toBe(0);
    expect(await page.locator("h2#stalls + p").textContent()).toMatch(/^None\./);
    // It did wait, with nothing sent for 4 s at a time (one call every 5 s), on a key without room.
    const { samples } = result.limiter;
    const quiet = samples.filter((s, i) => i >= 40 && s.waiting > 0 && samples[i - 40]!.sent === s.sent);
    expect(quiet.length).toBeGreaterThan(10);
    expect(Math.max(...quiet.map((s) => s.waitingRoom))).toBeLessThan(3);
  }, 60_000);
});
