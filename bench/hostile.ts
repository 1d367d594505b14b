/**
 * Issue 21 ("bounded trust"): what hostile or absurd provider input costs the limiter, in one tree.
 *
 *   npx tsx bench/hostile.ts [--src DIR] [--runs 3] [--json FILE]
 *   npx tsx bench/hostile.ts --before /tmp/before/src [--after DIR] [--rounds 3] [--runs 3]
 *
 * The first form measures the limiter imported from `${DIR}/index.ts` (this repo's src by default), so the same
 * script measures an older tree. The second runs the first form alternately for each tree, `--rounds` times each,
 * the order swapped every round, and prints the medians of the rounds as one markdown table.
 *
 *   a. `limiter.sync(h, { status: 429 })` of a plain header object with 1,000,000 keys (ms; median of `--runs`);
 *   b. 2,000 syncs of IETF `RateLimit-Policy: "p";q=100000;w=<60 + i>` / `RateLimit: "p";r=100000;t=1`, a
 *      different window each time: the dimensions `snapshot()` holds afterwards, the time of the 2,000 syncs (ms)
 *      and µs per `tryAcquire(1)` + `release()` afterwards;
 *   c. a 60-rpm limiter that synced `x-ratelimit-limit-requests: 60`, `remaining-requests: 59`, `reset-requests: 1s`
 *      and then `limit 1, remaining 0` (c1: no reset; c2: `reset-requests: 1s`): virtual seconds until `tryAcquire`
 *      admits again;
 *   d. a 60-rpm limiter given a 429 with `retry-after: 86400`, then a success reporting full budgets (limit 60,
 *      remaining 60, reset 1s): virtual seconds until `tryAcquire` admits again.
 *
 * Virtual time is @sinonjs/fake-timers (timers, `Date` and `performance` faked, as test/fake-time.ts does), moved on
 * in steps of 1/10,000 of the time waited so far (at least 1 ms), so a wait is found to within 0.01% (or 1 ms).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import FakeTimers from "@sinonjs/fake-timers";
import { median } from "./measure.js";
import { markdownTable } from "./table.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const { values: args } = parseArgs({
  options: {
    src: { type: "string", default: path.join(here, "..", "src") },
    runs: { type: "string", default: "3" },
    json: { type: "string" },
    before: { type: "string" },
    after: { type: "string", default: path.join(here, "..", "src") },
    rounds: { type: "string", default: "3" },
  },
});

/** One tree's figures; `null` where the tree has no API for the item. */
interface Figures {
  readonly syncMillionKeysMs: number | null;
  readonly ietfDimensions: number | null;
  readonly ietfSyncsMs: number | null;
  readonly ietfAdmitReleaseUs: number | null;
  readonly ietfAdmitted: string | null;
  readonly limitOneNoResetS: number | null;
  readonly limitOneResetS: number | null;
  readonly retryAfterDayS: number | null;
}

type Headers = Record<string, string>;

interface Reservation {
  release(): void;
}
interface Limiter {
  sync(headers: Headers, options?: { status?: number }): unknown;
  tryAcquire(estimate: number): Reservation | undefined;
  snapshot(): { dimensions: Record<string, unknown> };
}
type LimiterClass = new (options?: Record<string, unknown>) => Limiter;

async function measureTree(src: string, runs: number): Promise<Figures> {
  const mod = (await import(pathToFileURL(path.resolve(src, "index.ts")).href)) as { Limiter: LimiterClass };
  const { Limiter } = mod;
  const quiet = { onWarning: () => {} };

  // a. One sync of a 429 carrying 10^6 header keys.
  const huge: Headers = {};
  for (let i = 0; i < 1_000_000; i++) huge[`x-junk-${i}`] = "1";
  huge["retry-after"] = "1";
  const syncTimes: number[] = [];
  for (let r = 0; r < runs; r++) {
    const limiter = new Limiter({ rpm: 60, ...quiet });
    const start = performance.now();
    limiter.sync(huge, { status: 429 });
    syncTimes.push(performance.now() - start);
  }

  // b. 2,000 IETF responses, each with a different window.
  const dims: number[] = [];
  const ietfSyncs: number[] = [];
  const admits: number[] = [];
  let admitted = "";
  for (let r = 0; r < runs; r++) {
    const limiter = new Limiter(quiet);
    const start = performance.now();
    for (let i = 0; i < 2_000; i++)
      limiter.sync({ "ratelimit-policy": `"p";q=100000;w=${60 + i}`, ratelimit: `"p";r=100000;t=1` });
    ietfSyncs.push(performance.now() - start);
    dims.push(Object.keys(limiter.snapshot().dimensions).length);
    // At least 10,000 calls, or 2 s when each is slow.
    let calls = 0;
    let ok = 0;
    const t0 = performance.now();
    while (calls < 10_000 && (calls < 100 || performance.now() - t0 < 2_000)) {
      const reservation = limiter.tryAcquire(1);
      calls++;
      if (reservation) {
        ok++;
        reservation.release();
      }
    }
    admits.push(((performance.now() - t0) * 1000) / calls);
    admitted = `${ok}/${calls}`;
  }

  // c, d. Virtual seconds until the next admission.
  const limitOne = (reset: boolean) =>
    waitSeconds(Limiter, (limiter) => {
      limiter.sync({
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": "59",
        "x-ratelimit-reset-requests": "1s",
      });
      limiter.sync({
        "x-ratelimit-limit-requests": "1",
        "x-ratelimit-remaining-requests": "0",
        ...(reset ? { "x-ratelimit-reset-requests": "1s" } : {}),
      });
    });
  const limitOneNoResetS = limitOne(false);
  const limitOneResetS = limitOne(true);
  const retryAfterDayS = waitSeconds(Limiter, (limiter) => {
    limiter.sync({ "retry-after": "86400" }, { status: 429 });
    limiter.sync(
      {
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": "60",
        "x-ratelimit-reset-requests": "1s",
      },
      { status: 200 },
    );
  });

  return {
    syncMillionKeysMs: median(syncTimes),
    ietfDimensions: median(dims),
    ietfSyncsMs: median(ietfSyncs),
    ietfAdmitReleaseUs: median(admits),
    ietfAdmitted: admitted,
    limitOneNoResetS,
    limitOneResetS,
    retryAfterDayS,
  };
}

/** Seconds of virtual time, after `setup` on a fresh 60-rpm limiter, until `tryAcquire(1)` admits; null past 3 days. */
function waitSeconds(Limiter: LimiterClass, setup: (limiter: Limiter) => void): number | null {
  const timers = FakeTimers.install({
    now: Date.UTC(2026, 0, 1),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  try {
    const limiter = new Limiter({ rpm: 60, onWarning: () => {} });
    setup(limiter);
    const start = performance.now();
    const limit = 3 * 86_400_000;
    for (;;) {
      const elapsed = performance.now() - start;
      const reservation = limiter.tryAcquire(1);
      if (reservation) {
        reservation.release();
        return elapsed / 1000;
      }
      if (elapsed > limit) return null;
      timers.tick(Math.max(1, elapsed / 10_000));
    }
  } finally {
    timers.uninstall();
  }
}

const n = (digits: number) => (x: number | null) =>
  x === null ? "n/a" : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const ROWS: readonly [string, keyof Figures, (x: never) => string][] = [
  ["a. `sync(h, {status: 429})`, 10^6-key header object (ms)", "syncMillionKeysMs", n(0)],
  ["b. dimensions after 2,000 IETF responses, each a different `w`", "ietfDimensions", n(0)],
  ["b. time of the 2,000 IETF syncs (ms)", "ietfSyncsMs", n(0)],
  ["b. `tryAcquire(1)` + `release()` afterwards (µs)", "ietfAdmitReleaseUs", n(1)],
  ["b. of which admitted", "ietfAdmitted", (x: string | null) => x ?? "n/a"],
  ["c1. wait after `limit 60, remaining 59` then `limit 1, remaining 0` (s)", "limitOneNoResetS", n(2)],
  ["c2. same, the second with `reset-requests: 1s` (s)", "limitOneResetS", n(2)],
  ["d. wait after a 429 `retry-after: 86400` then full budgets (s)", "retryAfterDayS", n(2)],
];

function oneTable(f: Figures): string {
  return markdownTable(
    ["item", "value"],
    ["left", "right"],
    ROWS.map(([label, key, fmt]) => [label, fmt(f[key] as never)]),
  );
}

function medianFigures(all: Figures[]): Figures {
  const pick = (key: keyof Figures): number | null => {
    const xs = all.map((f) => f[key]).filter((x): x is number => typeof x === "number");
    return xs.length === 0 ? null : median(xs);
  };
  return {
    syncMillionKeysMs: pick("syncMillionKeysMs"),
    ietfDimensions: pick("ietfDimensions"),
    ietfSyncsMs: pick("ietfSyncsMs"),
    ietfAdmitReleaseUs: pick("ietfAdmitReleaseUs"),
    ietfAdmitted: all.at(-1)?.ietfAdmitted ?? null,
    limitOneNoResetS: pick("limitOneNoResetS"),
    limitOneResetS: pick("limitOneResetS"),
    retryAfterDayS: pick("retryAfterDayS"),
  };
}

if (args.before) {
  const rounds = Number(args.rounds);
  const trees = { before: path.resolve(args.before), after: path.resolve(args.after) };
  const results: Record<"before" | "after", Figures[]> = { before: [], after: [] };
  const self = fileURLToPath(import.meta.url);
  const tsx = path.join(here, "..", "node_modules", ".bin", "tsx");
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const);
    for (const side of order) {
      const out = path.join(os.tmpdir(), `hostile-${process.pid}-${side}-${round}.json`);
      const run = spawnSync(tsx, [self, "--src", trees[side], "--runs", args.runs, "--json", out], {
        stdio: ["ignore", "inherit", "inherit"],
      });
      if (run.status !== 0) throw new Error(`${side} round ${round + 1} exited ${run.status}`);
      results[side].push(JSON.parse(readFileSync(out, "utf8")) as Figures);
      rmSync(out);
    }
  }
  const before = medianFigures(results.before);
  const after = medianFigures(results.after);
  console.log(
    `\nMedians of ${rounds} interleaved rounds per tree (each round the median of ${args.runs} runs for a, b).\n`,
  );
  console.log(
    markdownTable(
      ["item", "before", "after"],
      ["left", "right", "right"],
      ROWS.map(([label, key, fmt]) => [label, fmt(before[key] as never), fmt(after[key] as never)]),
    ),
  );
} else {
  const figures = await measureTree(args.src, Number(args.runs));
  if (args.json) writeFileSync(args.json, JSON.stringify(figures));
  console.log(`\n${path.resolve(args.src)}\n`);
  console.log(oneTable(figures));
}
