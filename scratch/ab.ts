import { throughput } from "../bench/measure.js";
import { Limiter as NewL } from "../src/index.js";
import { Limiter as OldL } from "../../wt-old/src/index.js";
const work = async () => ({ value: 42, used: 100 });
const HUGE = 1e12;
async function rate(L: any, opts: object) { const l = new L({ rpm: HUGE, tpm: HUGE, ...opts }); const r = await throughput(() => l.run(200, work), 1000, 1000); l.close(); return r.wall; }
const variants: [string, any, object][] = [["old", OldL, {}], ["new", NewL, {}], ["new D=0", NewL, { arrivalDelayMs: 0 }]];
for (const [, L, o] of variants) await rate(L, o);
const res: Record<string, number[]> = {};
for (let round = 0; round < 6; round++) for (const [n, L, o] of round % 2 ? [...variants].reverse() : variants) { const r: any = await rate(L, o); (res[n] ??= []).push(typeof r === "number" ? r : r.wall ?? r.rate ?? JSON.stringify(r)); }
console.log(JSON.stringify(res));
