import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The repository root, ending in `/`. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** One fenced `ts` block of a Markdown file (or of a TSDoc comment). */
export interface Snippet {
  /** Where it stands, relative to the repository root, e.g. `docs/redis.md`. */
  readonly file: string;
  /** 1-based line in `file` of the block's first line of code. */
  readonly line: number;
  /** The text of the last heading above the block, e.g. `OpenAI`; `undefined` above the first. */
  readonly heading: string | undefined;
  readonly code: string;
}

/** A type error (or a suppressed check) in a snippet, placed in the file the snippet stands in. */
export interface SnippetProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

const TS_INFO = new Set(["ts", "typescript", "mts"]);
const HEADING = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;

/**
 * The fenced `ts` blocks of `markdown` (CommonMark fences: three or more backticks or
 * tildes, closed by a fence of the same character at least as long). Blocks in other
 * languages are skipped whole, so a `ts` fence quoted inside one is not taken.
 */
export function extractSnippets(markdown: string, file: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  let heading: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const open = FENCE.exec(text);
    if (!open) {
      heading = HEADING.exec(text)?.[1] ?? heading;
      continue;
    }
    const [, fence = "", info = ""] = open;
    const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    if (TS_INFO.has(info.toLowerCase())) {
      snippets.push({ file, line: i + 2, heading, code: lines.slice(i + 1, end).join("\n") + "\n" });
    }
    i = end;
  }
  return snippets;
}

/** The fenced `ts` blocks in the TSDoc comments of a source file (`@example`s), the ` * ` margin taken off. */
export function extractCommentSnippets(source: string, file: string): Snippet[] {
  const unmargined = source
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*\*(?!\/) ?/, ""))
    .join("\n");
  return extractSnippets(unmargined, file);
}

/** README.md and every Markdown file under docs/ (but docs/api/, TypeDoc's output), relative to the root. */
export function docFiles(): string[] {
  const docs = readdirSync(`${ROOT}docs`, { recursive: true, encoding: "utf8" })
    .map((name) => `docs/${name.split("\\").join("/")}`)
    .filter((name) => name.endsWith(".md") && !name.startsWith("docs/api/"))
    .sort();
  return ["README.md", ...docs];
}

/** Every `ts` snippet of README.md and docs/. */
export function docSnippets(): Snippet[] {
  return docFiles().flatMap((file) => extractSnippets(readFileSync(`${ROOT}${file}`, "utf8"), file));
}

/**
 * As a user's ES module sees the package: module NodeNext, strict, the entry
 * points mapped to their sources, so no build is needed.
 */
const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  types: ["node"],
  strict: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
  paths: {
    "llm-limiter": [`${ROOT}src/index.ts`],
    "llm-limiter/redis": [`${ROOT}src/redis/index.ts`],
    "llm-limiter/otel": [`${ROOT}src/otel/index.ts`],
    "llm-limiter/testing": [`${ROOT}src/testing/index.ts`],
    "llm-limiter/ai": [`${ROOT}src/ai/index.ts`],
    "llm-limiter/headers": [`${ROOT}src/headers/index.ts`],
    "llm-limiter/plan": [`${ROOT}src/plan/index.ts`],
    "llm-limiter/simulate": [`${ROOT}src/simulate/index.ts`],
  },
};

/** Directives that would hide a snippet's errors: free names are declared in a visible `declare` line instead. */
const SUPPRESSIONS = /@ts-(?:nocheck|ignore)\b/;

/** Files parsed from disk, kept across programs in one test file: the sources and typings parse once. */
const parsed = new Map<string, ts.SourceFile>();

/**
 * A compiler host that serves `virtual` (absolute path → text) from memory and parses
 * every other file once per test file.
 */
export function cachedHost(options: ts.CompilerOptions, virtual: ReadonlyMap<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.getSourceFile = (name, version, ...rest) => {
    const text = virtual.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, version, true);
    let file = parsed.get(name);
    if (!file) {
      file = getSourceFile(name, version, ...rest);
      if (file) parsed.set(name, file);
    }
    return file;
  };
  return host;
}

/**
 * Type-checks `snippets` in one program, each snippet a module of its own, beside the
 * tests (so `node_modules` resolves as for the project). Returns the problems in the
 * files the snippets came from; none when every snippet compiles.
 */
export function checkSnippets(snippets: readonly Snippet[]): SnippetProblem[] {
  const virtual = new Map(snippets.map((snippet, i) => [`${ROOT}test/docs/snippet-${i}.mts`, snippet]));
  const sources = new Map([...virtual].map(([name, snippet]) => [name, snippet.code]));
  const host = cachedHost(OPTIONS, sources);
  const program = ts.createProgram([...virtual.keys()], OPTIONS, host);
  const problems: SnippetProblem[] = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
    (d) => ({ file: "(compiler options)", line: 0, column: 0, message: message(d) }),
  );
  for (const [name, snippet] of virtual) {
    const file = program.getSourceFile(name)!;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    for (const d of diagnostics) {
      const { line, character } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      problems.push({ file: snippet.file, line: snippet.line + line, column: character + 1, message: message(d) });
    }
    snippet.code.split("\n").forEach((text, line) => {
      const match = SUPPRESSIONS.exec(text);
      if (match) {
        const hint = "hides type errors; declare the names a snippet leaves free in a `declare` line";
        problems.push({
          file: snippet.file,
          line: snippet.line + line,
          column: match.index + 1,
          message: `${match[0]} ${hint}`,
        });
      }
    });
  }
  return problems;
}

function message(diagnostic: ts.Diagnostic): string {
  return `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
}

/** `README.md:42:7 TS2304: Cannot find name 'prompt'.` */
export function formatProblem({ file, line, column, message }: SnippetProblem): string {
  return `${file}:${line}:${column} ${message}`;
}
