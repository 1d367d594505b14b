import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The first fenced `ts` block under `## Shared state in Redis`. */
function redisSnippet(): string {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const section = /^## Shared state in Redis$([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  const block = section && /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error("README.md has no ```ts block under ## Shared state in Redis");
  return block;
}

/**
 * Type errors of `source` as a user's ES module would see them: module
 * NodeNext, strict, the package's entry points mapped to the sources (no build
 * needed). The file is served from memory, beside the tests.
 */
function typeErrors(source: string): string[] {
  const file = `${ROOT}test/redis/readme-redis-snippet.mts`;
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    paths: { "llm-limiter": [`${ROOT}src/index.ts`], "llm-limiter/redis": [`${ROOT}src/redis/index.ts`] },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("the README's Redis snippet", () => {
  const snippet = redisSnippet();

  it("type-checks as an ES module under module NodeNext", () => {
    expect(typeErrors(snippet)).toEqual([]);
  }, 60_000);

  it("would catch the default import of ioredis", () => {
    expect(
      typeErrors(snippet.replace('import { Redis } from "ioredis";', 'import Redis from "ioredis";')).join("\n"),
    ).toMatch(/not constructable/);
  }, 60_000);

  it("sets autoResendUnfulfilledCommands: false and shuts down: the limiter, then the client", () => {
    expect(snippet).toMatch(/autoResendUnfulfilledCommands: false/);
    expect(snippet.indexOf("limiter.close()")).toBeGreaterThan(0);
    expect(snippet.indexOf("limiter.close()")).toBeLessThan(snippet.indexOf(".quit()"));
  });
});
