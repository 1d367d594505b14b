import fs from "node:fs";
const dir = process.argv[2];
const f = fs.readdirSync(dir).find((x) => x.endsWith(".cpuprofile"));
const p = JSON.parse(fs.readFileSync(`${dir}/${f}`));
const self = new Map(); const total = p.samples.length;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const counts = new Map(); for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
for (const [id, c] of counts) { const n = byId.get(id); const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + c); }
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 22).map(([k, c]) => `${(100 * c / total).toFixed(1)}% ${k}`).join("\n"));
