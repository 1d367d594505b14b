import { throughput } from "../bench/measure.js";
const dir = process.argv[2];
const { Limiter } = await import(`/work/${dir}/src/index.js`);
const work = async () => ({ value: 42, used: 100 });
const l = new Limiter({ rpm: 1e12, tpm: 1e12 });
const r = await throughput(() => l.run(200, work), 1000, 4000);
console.log(dir, Math.round(r.wall));
