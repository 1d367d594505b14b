import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../docs/snippets.js";

// The package's declarations as a user's TypeScript finds them: built with the package's own tsup
// config (declarations only, the slow part of `npm run build` that matters here), laid out as
// `node_modules/llm-limiter` beside the repository's node_modules (so the peers' types resolve),
// and imported, every entry of `exports`, by a consumer under each `moduleResolution` in use.

interface PackageJson {
  readonly exports: Readonly<Record<string, unknown>>;
  readonly typesVersions?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as PackageJson;
/** `llm-limiter`, `llm-limiter/testing`, …: every entry but `./package.json`. */
const ENTRIES = Object.keys(manifest.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? "llm-limiter" : `llm-limiter/${key.slice(2)}`));

/** A consumer that imports every entry and uses one of its exports, so an entry without types fails. */
const CONSUMER = ENTRIES.map(
  (entry, i) => `import * as entry${i} from "${entry}";\nexport const first${i}: unknown = Object.keys(entry${i})[0];`,
).join("\n");

interface Setting {
  readonly name: string;
  readonly files: readonly string[];
  readonly options: ts.CompilerOptions;
}

const STRICT = { strict: true, noEmit: true, skipLibCheck: false, types: ["node"], target: ts.ScriptTarget.ES2022 };

const SETTINGS: readonly Setting[] = [
  {
    name: "node (node10), module commonjs",
    files: ["consumer.ts"],
    options: { ...STRICT, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 },
  },
  {
    name: "node16, module node16 (an ES module and a CommonJS one)",
    files: ["consumer.mts", "consumer.cts"],
    options: { ...STRICT, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
  },
  {
    name: "bundler, module esnext",
    files: ["consumer.ts"],
    options: { ...STRICT, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
  },
];

let app = "";

beforeAll(() => {
  // Under the repository's node_modules, so that `ai`, `@opentelemetry/api` and `@types/node` resolve from it.
  const cache = path.join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  app = mkdtempSync(path.join(cache, "llm-limiter-types-"));
  const installed = path.join(app, "node_modules", "llm-limiter");
  execFileSync("npx", ["tsup", "--dts-only", "--silent", "--out-dir", path.join(installed, "dist")], {
    cwd: ROOT,
    stdio: "pipe",
  });
  cpSync(`${ROOT}package.json`, path.join(installed, "package.json"));
  // A package of its own: without it, the repository's package.json (named llm-limiter) would be the consumer's, and
  // node16 and bundler would resolve `llm-limiter` to the repository's own dist/ by self-reference.
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  for (const file of ["consumer.ts", "consumer.mts", "consumer.cts"]) writeFileSync(path.join(app, file), CONSUMER);
}, 120_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe("the package's types, as TypeScript resolves them from node_modules", () => {
  it("cover every entry of exports in typesVersions, for moduleResolution node", () => {
    const mapped = Object.keys(manifest.typesVersions?.["*"] ?? {}).map((key) => `llm-limiter/${key}`);
    expect(mapped.sort()).toEqual(ENTRIES.filter((entry) => entry !== "llm-limiter").sort());
  });

  it.each(SETTINGS)("type-check a consumer of every entry under moduleResolution $name", ({ files, options }) => {
    const program = ts.createProgram(
      files.map((file) => path.join(app, file)),
      options,
    );
    // The consumer and the package's own declarations, checked in full; the peers' declarations are
    // theirs (zod's, under node10, want esModuleInterop), so they are read but not checked.
    const ours = program.getSourceFiles().filter((file) => !path.relative(app, file.fileName).startsWith(".."));
    const problems = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...ours.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    ].map((d) => {
      const where = d.file ? `${path.relative(app, d.file.fileName)}: ` : "";
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    expect(problems).toEqual([]);
    // Every entry resolves to the package's own declarations (a missing one would be an error above).
    for (const file of files) {
      const source = program.getSourceFile(path.join(app, file))!;
      const specifiers = source.statements
        .filter(ts.isImportDeclaration)
        .map((s) => s.moduleSpecifier as ts.StringLiteral);
      expect(specifiers.map((s) => s.text)).toEqual(ENTRIES);
      for (const specifier of specifiers) {
        const mode = program.getModeForUsageLocation(source, specifier);
        const resolved = ts.resolveModuleName(
          specifier.text,
          source.fileName,
          options,
          ts.sys,
          undefined,
          undefined,
          mode,
        );
        expect(path.relative(app, resolved.resolvedModule?.resolvedFileName ?? "")).toMatch(
          /^node_modules\/llm-limiter\/dist\/[a-z]+\.d\.c?ts$/,
        );
      }
    }
  });
});
