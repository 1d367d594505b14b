const dir = process.argv[2];
const { Limiter } = await import(`/work/${dir}/dist-scratch/index.js`);
const l = new Limiter({ rpm: 1e12, tpm: 1e12 });
const work = async () => ({ value: 42, used: 100 });
const N = Number(process.argv[3] ?? 100000);
let done = 0;
async function loop() { while (done < N) { done++; await l.run(200, work); } }
await Promise.all(Array.from({ length: 1000 }, loop));
l.close();
