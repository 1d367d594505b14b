import { readFileSync } from "node:fs";
import ts from "typescript";

/** The README's quick start, compiled so a test can run it as printed. */
export interface QuickStart {
  /** The numeric options the snippet passes to `new Limiter({...})`, e.g. `{ rpm: 500, tpm: 200_000 }`. */
  readonly limits: Readonly<Record<string, number>>;
  /**
   * Runs the set-up (every statement before the first top-level `await`) once,
   * with `modules` as what its imports resolve to, and returns one call: the
   * statements from that `await` on, with the names the snippet leaves free
   * (`promptTokens`, `messages`) as parameters.
   */
  start(modules: Readonly<Record<string, unknown>>): { call(promptTokens: number, messages: unknown): Promise<void> };
}

const README = new URL("../../README.md", import.meta.url);

/** The first fenced `ts` block under `## Quick start`. */
export function quickStartSource(readme = readFileSync(README, "utf8")): string {
  const section = /^## Quick start$([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  const block = section && /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error("README.md has no ```ts block under ## Quick start");
  return block;
}

/** Whether `node` awaits outside any function of its own. */
function awaitsAtTopLevel(node: ts.Node): boolean {
  if (ts.isAwaitExpression(node)) return true;
  if (ts.isFunctionLike(node)) return false;
  return ts.forEachChild(node, awaitsAtTopLevel) ?? false;
}

export function compileQuickStart(source = quickStartSource()): QuickStart {
  const file = ts.createSourceFile("quick-start.ts", source, ts.ScriptTarget.ES2022, true);
  const split = file.statements.findIndex(awaitsAtTopLevel);
  if (split === -1) throw new Error("the quick start makes no call (no top-level await)");
  const setup = file.statements.slice(0, split);
  const text = (nodes: readonly ts.Node[]) => nodes.map((n) => n.getText(file)).join("\n");
  const module = `${text(setup)}
export async function call(promptTokens: number, messages: unknown): Promise<void> {
${text(file.statements.slice(split))}
}`;
  // CommonJS without interop helpers: `import X from "m"` reads `require("m").default`, as on an ES module namespace.
  const { outputText } = ts.transpileModule(module, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: false },
  });
  return {
    limits: limiterLimits(file),
    start(modules) {
      const exports: Record<string, unknown> = {};
      const require = (name: string): unknown => {
        if (!(name in modules)) throw new Error(`the quick start imports "${name}", which the test does not provide`);
        return modules[name];
      };
      new Function("require", "exports", outputText)(require, exports);
      return exports as ReturnType<QuickStart["start"]>;
    },
  };
}

/** The numeric properties of the object literal passed to `new Limiter(...)`. */
function limiterLimits(file: ts.SourceFile): Record<string, number> {
  let limits: Record<string, number> | undefined;
  const visit = (node: ts.Node): void => {
    const options =
      ts.isNewExpression(node) && node.expression.getText(file) === "Limiter" ? node.arguments?.[0] : undefined;
    if (options && ts.isObjectLiteralExpression(options)) {
      limits = Object.fromEntries(
        options.properties.flatMap((p) =>
          ts.isPropertyAssignment(p) && ts.isNumericLiteral(p.initializer)
            ? [[p.name.getText(file), Number(p.initializer.text)]]
            : [],
        ),
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!limits) throw new Error("the quick start constructs no `new Limiter({ ... })`");
  return limits;
}
