import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** A text of the corpus and where it came from. */
export interface CorpusText {
  readonly category: "English prose" | "code" | "JSON" | "CJK";
  readonly source: string;
  readonly text: string;
}

/** Texts are cut to about this many characters: a prompt's size, where the issue measured 1,410 and 4,500. */
const CHUNK_CHARS = 1_500;
/** At most this many chunks per file, so that no one file decides a category. */
const CHUNKS_PER_FILE = 4;

const ROOT = path.resolve(import.meta.dirname, "../..");

function files(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full, ext));
    else if (name.endsWith(ext)) out.push(full);
  }
  return out;
}

/** Cuts `text` into chunks of about CHUNK_CHARS at line ends. */
function chunks(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    current += `${line}\n`;
    if (current.length >= CHUNK_CHARS) {
      out.push(current.trim());
      current = "";
      if (out.length === CHUNKS_PER_FILE) break;
    }
  }
  if (out.length < CHUNKS_PER_FILE && current.trim().length > 200) out.push(current.trim());
  return out;
}

/** The prose of a Markdown file: its paragraphs, without code blocks, tables, headings or link targets. */
function prose(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, "")
    .split("\n")
    .filter((line) => line.trim() !== "" && !/^\s*(#|\||[-*] \[|<)/.test(line))
    .map((line) => line.replace(/\]\([^)]*\)/g, "]").replace(/[`*]/g, ""))
    .join("\n");
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return typeof value === "object" && value !== null ? Object.values(value).flatMap(stringsOf) : [];
}

const relative = (file: string): string => path.relative(ROOT, file);

/**
 * The corpus, from files every checkout has at the same versions (the repository's own, and node_modules as
 * package-lock.json pins it): English prose from docs/ and the READMEs and licences of dependencies, code from
 * src/ and two dependencies, JSON from the lock file and the dependencies' locale files, CJK from the Chinese,
 * Japanese and Korean locale and README files.
 */
export function corpus(): CorpusText[] {
  const texts: CorpusText[] = [];
  const add = (category: CorpusText["category"], file: string, text: string) => {
    for (const chunk of chunks(text)) texts.push({ category, source: relative(file), text: chunk });
  };
  const modules = path.join(ROOT, "node_modules");
  // Not docs/estimates.md: it states these figures, which would then move with every change to it.
  for (const file of files(path.join(ROOT, "docs"), ".md").filter((f) => !f.endsWith("estimates.md"))) {
    add("English prose", file, prose(readFileSync(file, "utf8")));
  }
  for (const name of [
    "express/Readme.md",
    "ioredis/README.md",
    "p-queue/readme.md",
    "bottleneck/README.md",
    "fast-check/README.md",
    "typescript/README.md",
  ]) {
    const file = path.join(modules, name);
    add("English prose", file, prose(readFileSync(file, "utf8")));
  }
  add(
    "English prose",
    path.join(modules, "typescript", "LICENSE.txt"),
    readFileSync(path.join(modules, "typescript", "LICENSE.txt"), "utf8"),
  );
  for (const file of files(path.join(ROOT, "src"), ".ts").filter((_, i) => i % 6 === 0)) {
    add("code", file, readFileSync(file, "utf8"));
  }
  for (const file of ["limiter/dist/cjs/TokenBucket.js", "p-queue/dist/index.js", "bottleneck/lib/Bottleneck.js"]) {
    add("code", path.join(modules, file), readFileSync(path.join(modules, file), "utf8"));
  }
  const lock = path.join(ROOT, "package-lock.json");
  add("JSON", lock, readFileSync(lock, "utf8"));
  for (const locale of ["en", "de", "ru"]) {
    const file = path.join(modules, "yargs", "locales", `${locale}.json`);
    add("JSON", file, readFileSync(file, "utf8"));
  }
  const fixtures = path.join(ROOT, "test/fixtures/estimate/recorded-usage.json");
  add("JSON", fixtures, readFileSync(fixtures, "utf8"));
  for (const locale of ["zh_CN", "zh_TW", "ja", "ko"]) {
    const file = path.join(modules, "yargs", "locales", `${locale}.json`);
    // The values (plural forms nest one level): the keys are English.
    add("CJK", file, stringsOf(JSON.parse(readFileSync(file, "utf8"))).join("\n"));
  }
  const japanese = path.join(modules, "@aid-on/llm-throttle", "README.ja.md");
  add("CJK", japanese, prose(readFileSync(japanese, "utf8")));
  const fixtureCorpus = JSON.parse(readFileSync(path.join(ROOT, "test/fixtures/estimate/corpus.json"), "utf8")) as {
    name: string;
    body: { messages?: { content?: unknown }[] };
  }[];
  for (const sample of fixtureCorpus.filter((s) => s.name.startsWith("cjk-"))) {
    const text = (sample.body.messages ?? []).map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
    texts.push({ category: "CJK", source: `test/fixtures/estimate/corpus.json ${sample.name}`, text });
  }
  return texts.filter((t) => t.text.length > 0);
}
