import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../docs/snippets.js";

// The public surface, counted as the TypeScript checker counts it (every name an entry exports, values
// and types alike), so that it stays one a user can hold in mind as exports are added: the root entry
// at most 60 names, every entry together at most 110.

const ROOT_CAP = 60;
const TOTAL_CAP = 110;

const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { exports: Record<string, unknown> };
/** Each entry of `exports` (`.`, `./redis`, …) and the source file tsup builds it from. */
const ENTRIES = Object.keys(manifest.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => ({ key, file: path.join(ROOT, "src", key === "." ? "index.ts" : `${key.slice(2)}/index.ts`) }));

const program = ts.createProgram(
  ENTRIES.map(({ file }) => file),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true },
);
const checker = program.getTypeChecker();

/** The names `file` exports, by the checker. */
function exportsOf(file: string): string[] {
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`no entry file ${file}`);
  return checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((symbol) => symbol.name);
}

const counted = ENTRIES.map(({ key, file }) => ({ key, names: exportsOf(file) }));

describe("the public surface", () => {
  it(`exports at most ${ROOT_CAP} names from the root entry`, () => {
    const root = counted.find(({ key }) => key === ".")!;
    expect(root.names.length, root.names.join(", ")).toBeLessThanOrEqual(ROOT_CAP);
  });

  it(`exports at most ${TOTAL_CAP} names over all entries`, () => {
    const perEntry = Object.fromEntries(counted.map(({ key, names }) => [key, names.length]));
    const total = counted.reduce((sum, { names }) => sum + names.length, 0);
    expect(total, JSON.stringify(perEntry)).toBeLessThanOrEqual(TOTAL_CAP);
  });

  it("counts values and type-only re-exports alike (the count can grow)", () => {
    expect(exportsOf(path.join(ROOT, "src/plan/index.ts")).sort()).toEqual([
      "DimensionPlan",
      "Plan",
      "PlanInput",
      "plan",
    ]);
  });

  it("leaves the store contract out of every entry: RedisStore and RedisGroupStore are what users pass", () => {
    const contract = ["SharedStore", "GroupStore", "Booking", "SharedLayout", "SharedReading", "SharedDimension"];
    const leaked = counted.flatMap(({ key, names }) =>
      names.filter((n) => contract.includes(n)).map((n) => `${key}: ${n}`),
    );
    expect(leaked).toEqual([]);
    expect(counted.find(({ key }) => key === "./redis")!.names).toEqual(
      expect.arrayContaining(["RedisStore", "RedisGroupStore", "ioredis", "nodeRedis", "upstash"]),
    );
  });

  it("keeps each part in its own entry: no `export *` in the root, the parser, planner and runner apart", () => {
    expect(readFileSync(path.join(ROOT, "src/index.ts"), "utf8")).not.toMatch(/export \*/);
    const where = (name: string): string[] => counted.filter(({ names }) => names.includes(name)).map(({ key }) => key);
    expect(where("parseRateLimitHeaders")).toEqual(["./headers"]);
    expect(where("classifyFailure")).toEqual(["./headers"]);
    expect(where("plan")).toEqual(["./plan"]);
    expect(where("simulate")).toEqual(["./simulate"]);
    expect(where("createProvider")).toEqual(["./testing"]);
  });
});
