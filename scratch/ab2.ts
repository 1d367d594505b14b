import { throughput } from "../bench/measure.js";
const dirs = process.argv.slice(2);
const work = async () => ({ value: 42, used: 100 });
const HUGE = 1e12;
const libs = await Promise.all(dirs.map(async (d) => [d, (await import(`/work/${d}/src/index.js`)).Limiter] as const));
async function rate(L: any) { const l = new L({ rpm: HUGE, tpm: HUGE }); const r = await throughput(() => l.run(200, work), 1000, 700); l.close(); return Math.round(r.wall / 1000); }
for (const [, L] of libs) await rate(L);
const res: Record<string, number[]> = {};
for (let round = 0; round < 6; round++) for (const [n, L] of round % 2 ? [...libs].reverse() : libs) (res[n] ??= []).push(await rate(L));
for (const [n, v] of Object.entries(res)) console.log(n, v.sort((a, b) => a - b)[3], JSON.stringify(v));
