/**
 * `limiter.fetch()` beside a raw `fetch` in the same run: bytes per second and CPU per call, for a plain
 * JSON body, an SSE stream (OpenAI chat chunks; the wrapper adds the usage chunk and hides it) and a
 * stream with no blank line (as a hostile upstream sends), each of 100 KB, 1 MB and 10 MB, from a local
 * HTTP server in a child process (its CPU is not counted). Rounds interleave the two fetches, the order
 * swapped each round. Then the stream observation alone on a stream with no blank line, in memory, in
 * 1 KiB chunks (as a server trickling lines sends it), at 1, 2, 4 and 8 MB: linear, or not. Prints markdown.
 *
 *   npm run bench:fetch
 *   npm run bench:fetch -- --src /tmp/old/src   (another tree's src/index.ts, for a before/after)
 */
import { fork, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./measure.js";
import { markdownTable, ratio } from "./table.js";

const SIZES = [100_000, 1_000_000, 10_000_000];
const KINDS = ["json", "sse", "unbroken"] as const;
type Kind = (typeof KINDS)[number];
/** Rounds per size, each one call of each fetch. */
const ROUNDS: ReadonlyMap<number, number> = new Map([
  [100_000, 1_000],
  [1_000_000, 200],
  [10_000_000, 60],
]);

const WARMUP_ROUNDS = 3;
const WRITE_BYTES = 65_536;

/** An OpenAI chat completion of about `size` bytes. */
function jsonBody(size: number): Buffer {
  const usage = { prompt_tokens: 12, completion_tokens: 3_000, total_tokens: 3_012 };
  const shell = (content: string) =>
    JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion",
      model: "gpt-4o",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage,
    });
  return Buffer.from(shell("word ".repeat(Math.max(0, Math.floor((size - shell("").length) / 5)))));
}

/** An OpenAI chat stream of about `size` bytes: ~190-byte delta chunks, the usage chunk, `[DONE]`. */
function sseBody(size: number): Buffer {
  const chunk = (delta: object, extra: object = {}) =>
    `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta, logprobs: null, finish_reason: null }], ...extra })}\n\n`;
  const delta = chunk({ content: " token" });
  const usage = `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [], usage: { prompt_tokens: 12, completion_tokens: 3_000, total_tokens: 3_012 } })}\n\n`;
  const count = Math.max(1, Math.floor((size - usage.length) / delta.length));
  return Buffer.from(delta.repeat(count) + usage + "data: [DONE]\n\n");
}

/** A stream of about `size` bytes with no blank line: one event that never ends (a hostile upstream). */
function unbrokenBody(size: number): Buffer {
  const line = `data: ${"y".repeat(1_000)}\n`;
  return Buffer.from(line.repeat(Math.ceil(size / line.length)));
}

/** The child: serves `/json/<size>` and `/sse/<size>` in 64 KiB writes; prints its port. */
async function serve(): Promise<void> {
  const bodies = new Map<string, Buffer>();
  for (const size of SIZES) {
    bodies.set(`/json/${size}`, jsonBody(size));
    bodies.set(`/sse/${size}`, sseBody(size));
    bodies.set(`/unbroken/${size}`, unbrokenBody(size));
  }
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url!.replace(/^\/v1\/chat\/completions/, "");
      const body = bodies.get(path)!;
      const sse = !path.startsWith("/json");
      res.writeHead(200, {
        "content-type": sse ? "text/event-stream" : "application/json",
        ...(sse ? {} : { "content-length": String(body.length) }),
      });
      let at = 0;
      const write = (): void => {
        while (at < body.length) {
          const piece = body.subarray(at, (at += WRITE_BYTES));
          if (!res.write(piece)) return void res.once("drain", write);
        }
        res.end();
      };
      write();
    });
  });
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as AddressInfo).port));
}

function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv });
  return new Promise((resolve, reject) => {
    child.once("message", (port) => resolve({ child, origin: `http://127.0.0.1:${String(port)}` }));
    child.once("error", reject);
  });
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** One call: sends the request and reads the whole body, as an SDK does; wall ms and CPU ms. */
async function timed(fetch: typeof globalThis.fetch, url: string, stream: boolean, size: number): Promise<Sample> {
  const body = JSON.stringify({
    model: "gpt-4o",
    messages: [{ role: "user", content: "Tell me a long story." }],
    max_tokens: 4_000,
    ...(stream && { stream: true }),
  });
  // The garbage of the call before is not charged to this one.
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const reader = response.body!.getReader();
  let bytes = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.length;
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  // The hidden usage chunk is the only difference a limited stream may show.
  if (bytes < size * 0.9) throw new Error(`read ${bytes} bytes of ${size}`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

interface Row {
  kind: Kind;
  size: number;
  raw: { mbps: number; cpuMs: number };
  limited: { mbps: number; cpuMs: number };
  /** Medians of the per-round ratios limited ÷ raw. */
  wallRatio: number;
  cpuRatio: number;
  rounds: number;
}

async function measure(origin: string, srcIndex: string): Promise<Row[]> {
  const { Limiter } = (await import(srcIndex)) as typeof import("../src/index.js");
  const limiter = new Limiter({ rpm: 1e9, tpm: 1e12, initial: "full", provider: "openai" });
  const limited = limiter.fetch();
  const raw = globalThis.fetch;
  const rows: Row[] = [];
  for (const kind of KINDS) {
    for (const size of SIZES) {
      const url = `${origin}/v1/chat/completions/${kind}/${size}`;
      const rounds = ROUNDS.get(size)!;
      const samples: Record<"raw" | "limited", Sample[]> = { raw: [], limited: [] };
      for (let round = -WARMUP_ROUNDS; round < rounds; round++) {
        const order = round % 2 === 0 ? (["raw", "limited"] as const) : (["limited", "raw"] as const);
        for (const which of order) {
          const sample = await timed(which === "raw" ? raw : limited, url, kind !== "json", size);
          if (round >= 0) samples[which].push(sample);
        }
      }
      const rate = (list: Sample[]) => size / 1e6 / (median(list.map((s) => s.wallMs)) / 1000);
      const cpu = (list: Sample[]) => median(list.map((s) => s.cpuMs));
      const paired = (pick: (s: Sample) => number) =>
        median(samples.limited.map((s, i) => pick(s) / pick(samples.raw[i]!)));
      rows.push({
        kind,
        size,
        raw: { mbps: rate(samples.raw), cpuMs: cpu(samples.raw) },
        limited: { mbps: rate(samples.limited), cpuMs: cpu(samples.limited) },
        wallRatio: paired((s) => s.wallMs),
        cpuRatio: paired((s) => s.cpuMs),
        rounds,
      });
    }
  }
  await limiter.close();
  return rows;
}

function report(rows: Row[], src: string): string {
  const size = (n: number) => (n >= 1e6 ? `${n / 1e6} MB` : `${n / 1e3} KB`);
  const f = (n: number, digits = 1) => n.toFixed(digits);
  const table = markdownTable(
    [
      "body",
      "size",
      "rounds",
      "raw MB/s",
      "limited MB/s",
      "time ÷ raw",
      "raw CPU ms/call",
      "limited CPU ms/call",
      "CPU ÷ raw",
    ],
    ["left", "right", "right", "right", "right", "right", "right", "right", "right"],
    rows.map((r) => [
      { json: "JSON", sse: "SSE", unbroken: "SSE, no blank line" }[r.kind],
      size(r.size),
      String(r.rounds),
      f(r.raw.mbps, 0),
      f(r.limited.mbps, 0),
      ratio(r.wallRatio),
      f(r.raw.cpuMs, 2),
      f(r.limited.cpuMs, 2),
      ratio(r.cpuRatio),
    ]),
  );
  const cpus = os.cpus();
  const header = `${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpus[0]?.model.trim() ?? "?"} × ${cpus.length} · limiter from \`${src}\``;
  return `${header}\n\n${table}\n`;
}

const TRICKLE_SIZES = [1, 2, 4, 8].map((mb) => mb * 1024 * 1024);
const TRICKLE_CHUNK = 1_024;
const TRICKLE_RUNS = 7;

/** Milliseconds the tree's `observeSse` takes over an in-memory stream of `size` bytes with no blank line. */
async function observeUnbroken(srcDir: string, size: number): Promise<number> {
  const { observeSse } = (await import(
    pathToFileURL(`${srcDir}/fetch/sse.ts`).href
  )) as typeof import("../src/fetch/sse.js");
  const line = new TextEncoder().encode(`data: ${"y".repeat(TRICKLE_CHUNK - 7)}\n`);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) controller.close();
      else controller.enqueue(line);
      sent += line.length;
    },
  });
  globalThis.gc?.();
  const start = performance.now();
  const observed = observeSse(
    body,
    () => true,
    () => undefined,
    { only: '"usage"', mayHide: true },
  );
  const reader = observed.getReader();
  while (!(await reader.read()).done);
  return performance.now() - start;
}

function trickleReport(times: number[]): string {
  const table = markdownTable(
    ["size", "ms", "MB/s", "ms ÷ the 1 MB time"],
    ["right", "right", "right", "right"],
    TRICKLE_SIZES.map((size, i) => [
      `${size / 1024 / 1024} MB`,
      times[i]!.toFixed(0),
      (size / 1024 / 1024 / (times[i]! / 1000)).toFixed(0),
      ratio(times[i]! / times[0]!),
    ]),
  );
  return `Stream observation alone, no blank line, 1 KiB chunks (in memory, median of ${TRICKLE_RUNS} runs, or one run when it takes over 2 s):\n\n${table}\n`;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--src");
  const src = at > 0 ? process.argv[at + 1]! : fileURLToPath(new URL("../src", import.meta.url));
  const { child, origin } = await startServer();
  try {
    const rows = await measure(origin, pathToFileURL(`${src}/index.ts`).href);
    console.log(report(rows, at > 0 ? src : "src"));
    const times: number[] = [];
    for (const size of TRICKLE_SIZES) {
      // The median of a few runs; one, when a run takes seconds (the code before issue 21 did).
      const runs = [await observeUnbroken(src, size)];
      while (runs.length < TRICKLE_RUNS && runs[0]! < 2_000) runs.push(await observeUnbroken(src, size));
      times.push(median(runs));
    }
    console.log(trickleReport(times));
  } finally {
    child.kill();
  }
}

if (process.argv.includes("--serve")) void serve();
else await main();
