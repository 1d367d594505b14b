/**
 * `npm run bench:estimates`: the default estimate against `gpt-tokenizer` (o200k) over a corpus of English prose,
 * code, JSON and CJK, beside the simulator's own prompt count; then the adoption snippets of the README and
 * docs/ai-sdk.md, each a burst of prose prompts against the simulator on virtual time, and the 429s they draw.
 * Writes bench/results/estimates.md, keeping what stands below its `records` marker.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { estimateRequest } from "../src/index.js";
import { createProvider } from "../src/testing/index.js";
import { estimatePromptTokens } from "../src/testing/prompt.js";
import { ADOPTIONS, prosePrompts, runAdoption } from "./estimates/adoption.js";
import { measureRatios } from "./estimates/ratios.js";

const RESULTS = path.join(import.meta.dirname, "results", "estimates.md");
const MARKER = "<!-- records: kept when the bench rewrites this file -->";

const pct = (ratio: number): string => `${ratio >= 1 ? "+" : ""}${Math.round((ratio - 1) * 100)}%`;

const ratios = measureRatios();
const ratioTable = [
  "| texts | characters | chars / o200k token | default vs o200k: all | lowest | highest | texts under | simulator (chars / 4) vs o200k: all | lowest | highest |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...ratios.map(
    (r) =>
      `| ${r.category} (${r.texts}) | ${r.chars.toLocaleString("en-US")} | ${r.charsPerToken.toFixed(2)} | ` +
      `${pct(r.defaultRatio)} | ${pct(r.defaultMin)} | ${pct(r.defaultMax)} | ${r.defaultUnder} | ` +
      `${pct(r.simulatorRatio)} | ${pct(r.simulatorMin)} | ${pct(r.simulatorMax)} |`,
  ),
].join("\n");
console.log(ratioTable);

// The issue's own figures: one English prompt of 1,410 characters, one of 4,500.
const promptRows = prosePrompts(2).map((prompt) => {
  const messages = [{ role: "user" as const, content: prompt }];
  const estimated = estimateRequest({ model: "gpt-4o-mini", messages }, { endpoint: "chat.completions" }).input;
  return `| ${prompt.length.toLocaleString("en-US")} | ${estimated} | ${estimatePromptTokens({ messages })} |`;
});
const promptTable = [
  "| characters of English | `estimateRequest` input | simulator's count |",
  "| ---: | ---: | ---: |",
  ...promptRows,
].join("\n");
console.log(promptTable);

// undici starts its timers on the first request: on real time, before any run fakes the clock.
const warm = await createProvider({}).listen();
await (await fetch(`${warm.url}/v1/models`)).arrayBuffer();
await warm.close();

const runs = [];
for (const adoption of ADOPTIONS) {
  const run = await runAdoption(adoption);
  console.log(`${run.name}: ${run.rejected} 429s, ${run.served} served, makespan ${run.makespanS.toFixed(1)} s`);
  runs.push(run);
}
const runTable = [
  "| snippet | calls | 429s at the simulator | makespan |",
  "| --- | ---: | ---: | ---: |",
  ...runs.map((r) => `| ${r.name} | ${r.calls} | ${r.rejected} | ${r.makespanS.toFixed(1)} s |`),
].join("\n");

const kept = existsSync(RESULTS) ? (readFileSync(RESULTS, "utf8").split(MARKER)[1] ?? "\n") : "\n";
writeFileSync(
  RESULTS,
  `# Estimates: the default against o200k, and the adoption snippets' 429s

Written by \`npm run bench:estimates\` (\`bench/estimates.ts\`), Node ${process.version}. Deterministic: the corpus
is read from the repository and node_modules as package-lock.json pins them, and the runs are on virtual time.

## The default estimate per character class, against \`gpt-tokenizer\` (o200k)

Texts cut at line ends to about 1,500 characters (at most four per file): English prose from docs/ and six
dependencies' READMEs and a licence, code from src/ and three dependencies, JSON from package-lock.json and
locale files, CJK from Chinese, Japanese and Korean locale files, a Japanese README and the CJK samples of
test/fixtures/estimate/corpus.json (\`bench/estimates/corpus.ts\`). "Under" counts texts the default counts below
o200k. The simulator counts \`ceil(chars / 4)\` per message.

${ratioTable}

## One prompt, before any usage

${promptTable}

## Adoption snippets, a burst of prose prompts (1,410 and 4,500 characters in turn)

Every call at once, network delays 0 to 50 ms, answers of 100 to 400 tokens, latency 300 ms + 15 ms a token,
the simulator enforcing the snippet's limits (OpenAI-style: prompt + \`max_tokens\` on TPM; Anthropic-style: the
prompt on ITPM, \`max_tokens\` on OTPM). The SDKs retry as configured by default, so a 429 costs time, not an error.

${runTable}
${MARKER}${kept}`,
);
console.log(`written to ${path.relative(process.cwd(), RESULTS)}`);
