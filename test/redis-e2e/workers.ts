import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import type { ToParent, ToWorker, WorkerJob, WorkerReport } from "./job.js";

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));
const SKEWED_DATE = fileURLToPath(new URL("./skewed-date.ts", import.meta.url));

/** A job to run in its own process, whose `Date.now()` is `skewMs` off. */
export interface Spawn {
  readonly job: WorkerJob;
  readonly skewMs?: number;
}

/** What the test process saw of a run. */
export interface Run {
  readonly reports: readonly WorkerReport[];
  /** The test process's `Date.now()` when it sent "go". */
  readonly wallAtGo: number;
}

function start({ job, skewMs = 0 }: Spawn): { child: ChildProcess; ready: Promise<void>; done: Promise<WorkerReport> } {
  const preload = skewMs === 0 ? [] : ["--import", SKEWED_DATE];
  const child = fork(WORKER, [JSON.stringify(job)], {
    execArgv: ["--import", "tsx", ...preload],
    env: { ...process.env, E2E_SKEW_MS: String(skewMs) },
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code, signal) =>
      reject(new Error(`worker exited (${signal ?? code}) before reporting:\n${stderr}`)),
    ),
  );
  const next = (type: ToParent["type"]): Promise<ToParent> =>
    Promise.race([
      new Promise<ToParent>((resolve) => child.on("message", (m: ToParent) => m.type === type && resolve(m))),
      exited,
    ]);
  const ready = next("ready").then(() => undefined);
  const done = ready.then(() => next("done")).then((m) => (m as Extract<ToParent, { type: "done" }>).report);
  // Surfaced through `ready`/`done`; keep an early exit from being reported as unhandled.
  exited.catch(() => {});
  return { child, ready, done };
}

/** Starts one process per spawn, lets them all go at once when every one is ready, and collects their reports. */
export async function runWorkers(spawns: readonly Spawn[]): Promise<Run> {
  const workers = spawns.map(start);
  await Promise.all(workers.map((w) => w.ready));
  const wallAtGo = Date.now();
  for (const { child } of workers) child.send({ type: "go" } satisfies ToWorker);
  return { reports: await Promise.all(workers.map((w) => w.done)), wallAtGo };
}
