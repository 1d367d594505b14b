/**
 * Per-second trace of llm-limiter on one goodput workload, to see why it
 * misses a target: the provider's admissions and 429s (by dimension), the
 * remaining it reported last, and each client's levels and queue from
 * `limiter.snapshot()`.
 *
 *   npx tsx bench/goodput-trace.ts <workload id> [from s] [to s]
 */
import { Limiter } from "../src/index.js";
import { limiterOptions, sendThrough, type Provider } from "./goodput/contenders.js";
import { simulate } from "./goodput/simulate.js";
import { workloads } from "./goodput/workloads.js";

const [id = "1", from = "0", to = "Infinity"] = process.argv.slice(2);
const workload = workloads.find((w) => w.id === id);
if (!workload) throw new Error(`no workload ${id}; have ${workloads.map((w) => w.id).join(", ")}`);
const [fromS, toS] = [Number(from), Number(to)];

interface Sample {
  readonly second: number;
  readonly clients: string[];
  reported: string;
}
const samples: Sample[] = [];
const limiters: Limiter[] = [];
let reported = "";
let start = 0;

/** Wraps the provider to keep the last remaining-requests / remaining-tokens it reported. */
function watched(provider: Provider): Provider {
  return {
    ...provider,
    call: async (request) => {
      const res = await provider.call(request);
      const h = res.headers;
      reported = `${h["x-ratelimit-remaining-requests"] ?? "-"} / ${h["x-ratelimit-remaining-tokens"] ?? "-"}`;
      return res;
    },
  };
}

function sample(): void {
  const second = Math.round((performance.now() - start) / 1_000);
  const clients = limiters.map((l) => {
    const s = l.snapshot();
    const level = (name: string) => {
      const d = s.dimensions[name];
      return d ? `${Math.round(d.available)}/${d.limit}` : "-";
    };
    return `rpm ${level("rpm")} tpm ${level("tpm")} q ${s.queued} in ${s.inFlight}`;
  });
  samples.push({ second, clients, reported });
}

const run = await simulate(workload, (index) => {
  const limiter = new Limiter(limiterOptions(workload));
  limiters.push(limiter);
  if (index === 0) {
    start = performance.now();
    setInterval(sample, 1_000);
  }
  const send = sendThrough(limiter);
  return (job, provider) => send(job, watched(provider));
});

const perSecond = new Map<number, { ok: number; rejected: Map<string, number> }>();
for (const c of run.calls) {
  const second = Math.floor(c.receivedAt / 1_000);
  const row = perSecond.get(second) ?? { ok: 0, rejected: new Map<string, number>() };
  if (c.status === 200) row.ok++;
  else row.rejected.set(c.rejectedBy ?? "?", (row.rejected.get(c.rejectedBy ?? "?") ?? 0) + 1);
  perSecond.set(second, row);
}
console.log(`workload ${workload.id}: ${workload.title}`);
console.log(
  "s | admitted | 429s | provider remaining rpm / tpm (last reported) | per client: level/limit, queued, in flight",
);
for (const s of samples) {
  if (s.second < fromS || s.second > toS) continue;
  const row = perSecond.get(s.second - 1);
  const rejected = row ? [...row.rejected].map(([d, n]) => `${d} ${n}`).join(" ") : "";
  console.log(`${s.second} | ${row?.ok ?? 0} | ${rejected} | ${s.reported} | ${s.clients.join(" || ")}`);
}
