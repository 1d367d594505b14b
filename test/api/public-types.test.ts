import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const src = path.join(root, "src");
const ENTRIES = [
  "index.ts",
  "redis/index.ts",
  "testing/index.ts",
  "ai/index.ts",
  "otel/index.ts",
  "headers/index.ts",
  "plan/index.ts",
  "simulate/index.ts",
].map((entry) => path.join(src, entry));

/**
 * Whether a type is documented where it is used (TypeDoc's `@inline`): a union of names or a part of one
 * structure (an event's reason, a wire body's detail), which the surface leaves unnamed to stay small.
 */
const inlined = (symbol: ts.Symbol): boolean =>
  (symbol.declarations ?? []).some((d) => ts.getJSDocTags(d).some((tag) => tag.tagName.text === "inline"));

/**
 * The types declared in src/ that the public declarations of `entries` refer
 * to (members a user can reach: not private, protected or `@internal`), by
 * name, with where they are used; and the symbols the entries export.
 */
function publicSurface(entries: readonly string[]): { used: Map<ts.Symbol, string>; exported: Set<ts.Symbol> } {
  const program = ts.createProgram(entries, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const resolve = (symbol: ts.Symbol): ts.Symbol =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exported = new Set<ts.Symbol>();
  const used = new Map<ts.Symbol, string>();
  const seen = new Set<ts.Node>();
  // An overloaded function's implementation signature is not declared: its overloads are.
  const hidden = (node: ts.Node): boolean =>
    (ts.getCombinedModifierFlags(node as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !==
      0 ||
    ts.getJSDocTags(node).some((tag) => tag.tagName.text === "internal") ||
    (ts.isFunctionLike(node) && checker.isImplementationOfOverload(node) === true);
  const visit = (node: ts.Node, where: string): void => {
    if (hidden(node)) return;
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isTypeQueryNode(node)
          ? node.exprName
          : node.expression;
      const symbol = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : name);
      if (symbol) walk(resolve(symbol), where);
    }
    // Bodies are not part of a signature.
    if (ts.isBlock(node)) return;
    ts.forEachChild(node, (child) => visit(child, where));
  };
  const walk = (symbol: ts.Symbol, where: string): void => {
    for (const declaration of symbol.declarations ?? []) {
      if (!declaration.getSourceFile().fileName.startsWith(src) || seen.has(declaration)) continue;
      seen.add(declaration);
      if (!ts.isTypeParameterDeclaration(declaration)) used.set(symbol, where);
      visit(declaration, `${where} > ${symbol.name}`);
    }
  };
  for (const entry of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (const symbol of checker.getExportsOfModule(module)) exported.add(resolve(symbol));
  }
  for (const symbol of exported) walk(symbol, symbol.name);
  return { used, exported };
}

describe("the public surface", () => {
  it("exports every type a public signature uses (none is reachable only from a hashed chunk of the .d.ts)", () => {
    const { used, exported } = publicSurface(ENTRIES);
    const missing = [...used]
      .filter(([symbol]) => !exported.has(symbol) && !inlined(symbol))
      .map(([symbol, where]) => `${symbol.name} (${where})`);
    expect(missing).toEqual([]);
    expect(used.size).toBeGreaterThan(50);
  });

  it("exports no type it documents inline (`@inline` is for the names it leaves out)", () => {
    const { exported } = publicSurface(ENTRIES);
    expect([...exported].filter(inlined).map((symbol) => symbol.name)).toEqual([]);
  });

  it("finds a type that is used but not exported (the check can fail)", () => {
    const { used, exported } = publicSurface([path.join(src, "index.ts")]);
    const missing = [...used]
      .filter(([symbol]) => !exported.has(symbol) && !inlined(symbol))
      .map(([symbol]) => symbol.name);
    // `LimiterOptions.store` is a RedisStore, which only the redis entry exports.
    expect(missing).toContain("RedisStore");
  });
});
