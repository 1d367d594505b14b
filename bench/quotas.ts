/**
 * What calendar quotas cost per admission: `run(200, fn)` through a limiter without quotas, and through one with
 * a money quota, a tokens quota and a money and requests quota per tenant (1,000 tenants in turn), interleaved
 * in one process (medians of paired rounds, as bench/overhead.ts does). Prints the table; writes nothing.
 *
 *   node --expose-gc --import tsx bench/quotas.ts
 *   node --expose-gc --import tsx bench/quotas.ts /path/to/other/src/index.ts   (adds that tree's plain limiter)
 */
import { pathToFileURL } from "node:url";
import { collect, median, throughput } from "./measure.js";
import { Limiter } from "../src/index.js";

const CALLERS = 1_000;
const ROUNDS = 9;
const RUN_MS = 1_000;
const HUGE = 1e12;
const TENANTS = 1_000;

type Open = { call: () => Promise<unknown>; close: () => unknown };
type LimiterClass = typeof Limiter;

const work = async (): Promise<{ value: number; used: { input: number; output: number } }> => ({
  value: 42,
  used: { input: 80, output: 20 },
});

function plain(L: LimiterClass): () => Open {
  return () => {
    const limiter = new L({ rpm: HUGE, tpm: HUGE });
    return { call: () => limiter.run({ input: 100, output: 100 }, work), close: () => limiter.close() };
  };
}

/** A limiter with `budgets` (none: the same calls, tenants named, no quota), 1,000 tenants in turn. */
function tenants(budgets: Partial<ConstructorParameters<LimiterClass>[0]>): () => Open {
  return () => open(budgets);
}

function open(budgets: Partial<ConstructorParameters<LimiterClass>[0]>): Open {
  const limiter = new Limiter({ rpm: HUGE, tpm: HUGE, ...budgets });
  let n = 0;
  const options = Array.from({ length: TENANTS }, (_, i) => ({ tenant: `tenant-${i}` }));
  return {
    call: () => limiter.run({ input: 100, output: 100 }, work, options[n++ % TENANTS]),
    close: () => limiter.close(),
  };
}

const contenders: [string, () => Open][] = [
  ["no quotas", plain(Limiter)],
  ["no quotas, 1,000 tenants named", tenants({})],
  [
    "usd + tokens quotas, 1,000 tenants with usd + requests quotas",
    tenants({
      prices: { input: 2.5, output: 10 },
      quotas: { usd: { day: 9e6 }, tokens: { month: 1e15 } },
      tenantQuotas: { usd: { day: 1e6 }, requests: { day: 1e15 } },
    }),
  ],
];
const other = process.argv[2];
if (other) {
  const { Limiter: Other } = (await import(pathToFileURL(other).href)) as { Limiter: LimiterClass };
  contenders.unshift([`no quotas (${other})`, plain(Other)]);
}

const rates = new Map(contenders.map(([name]) => [name, [] as number[]]));
for (const [, open] of contenders) {
  const o = open();
  await throughput(o.call, CALLERS, 400);
  o.close();
}
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  for (const [name, open] of order) {
    collect();
    const o = open();
    rates.get(name)!.push((await throughput(o.call, CALLERS, RUN_MS)).cpu);
    o.close();
  }
}
const base = rates.get("no quotas")!;
console.log("| limiter | calls per CPU-s (median) | µs per call | ÷ no quotas (paired median) |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, samples] of rates) {
  const ratio = median(samples.map((r, i) => r / base[i]!));
  const rate = median(samples);
  console.log(
    `| ${name} | ${Math.round(rate).toLocaleString("en")} | ${(1e6 / rate).toFixed(2)} | ${ratio.toFixed(2)}x |`,
  );
}
