import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { epochNow, type Job, type Report, type ToParent, type ToWorker } from "./jobs.js";

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** What a run of worker processes produced. */
export interface Run {
  readonly reports: readonly Report[];
  /** When "go" was sent (see `epochNow`). */
  readonly goAt: number;
}

/**
 * Forks one worker per job, waits until all are warm, calls `beforeGo` (to
 * reset the server's counters), lets them all go at once and collects reports.
 */
export async function runWorkers(jobs: readonly Job[], beforeGo: () => Promise<void>): Promise<Run> {
  const children = jobs.map((job) => fork(WORKER, [JSON.stringify(job)], { execArgv: ["--import", "tsx"] }));
  const message = (type: ToParent["type"]) =>
    Promise.all(
      children.map(
        (child) =>
          new Promise<ToParent>((resolve, reject) => {
            child.once("exit", (code) => reject(new Error(`benchmark worker exited with ${code}`)));
            child.on("message", (m: ToParent) => m.type === type && resolve(m));
          }),
      ),
    );
  await message("ready");
  await beforeGo();
  const done = message("done");
  const goAt = epochNow();
  for (const child of children) child.send({ type: "go" } satisfies ToWorker);
  const reports = (await done).map((m) => (m as Extract<ToParent, { type: "done" }>).report);
  return { reports, goAt };
}
