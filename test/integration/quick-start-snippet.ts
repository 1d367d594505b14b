import { readFileSync } from "node:fs";
import ts from "typescript";
import { extractSnippets, ROOT } from "../docs/snippets.js";

/** One of the README's quick starts, compiled so a test can run it as printed. */
export interface QuickStart {
  /** The numeric options the snippet passes to `new Limiter({...})`, e.g. `{ rpm: 500, tpm: 200_000 }`. */
  readonly limits: Readonly<Record<string, number>>;
  /** The names the snippet leaves free, from its `declare` lines, e.g. `["messages", "promptTokens"]`. */
  readonly free: readonly string[];
  /**
   * Runs the set-up (every statement before the first top-level `await` or use of a free name) once,
   * with `modules` as what its imports resolve to, and returns one call: the
   * statements from there on, given a value for every free name.
   */
  start(modules: Readonly<Record<string, unknown>>): { call(free: Readonly<Record<string, unknown>>): Promise<void> };
}

/** The `ts` block under the README's heading `heading` (`OpenAI`, `Anthropic`, …). */
export function quickStartSource(heading: string, readme = readFileSync(`${ROOT}README.md`, "utf8")): string {
  const snippet = extractSnippets(readme, "README.md").find((s) => s.heading === heading);
  if (!snippet) throw new Error(`README.md has no \`\`\`ts block under the heading "${heading}"`);
  return snippet.code;
}

/** Whether `node` awaits outside any function of its own. */
function awaitsAtTopLevel(node: ts.Node): boolean {
  if (ts.isAwaitExpression(node)) return true;
  if (ts.isFunctionLike(node)) return false;
  return ts.forEachChild(node, awaitsAtTopLevel) ?? false;
}

/** Whether `node` reads one of `names` (a per-call value the set-up cannot have). */
function uses(node: ts.Node, names: ReadonlySet<string>): boolean {
  if (ts.isIdentifier(node) && names.has(node.text)) return true;
  return ts.forEachChild(node, (child) => uses(child, names)) ?? false;
}

/** The names a `declare const x: T;` or `declare function f(): T;` statement introduces. */
function declaredNames(statement: ts.Statement): string[] {
  if (!ts.canHaveModifiers(statement)) return [];
  if (!ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)) return [];
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  }
  return ts.isFunctionDeclaration(statement) && statement.name ? [statement.name.text] : [];
}

export function compileQuickStart(source: string): QuickStart {
  const file = ts.createSourceFile("quick-start.ts", source, ts.ScriptTarget.ES2022, true);
  const free = file.statements.flatMap(declaredNames);
  if (!file.statements.some(awaitsAtTopLevel)) throw new Error("the quick start makes no call (no top-level await)");
  const names = new Set(free);
  const split = file.statements.findIndex(
    (statement) => awaitsAtTopLevel(statement) || (declaredNames(statement).length === 0 && uses(statement, names)),
  );
  const text = (nodes: readonly ts.Node[]) => nodes.map((n) => n.getText(file)).join("\n");
  // The `declare` lines emit nothing; the call takes their names as parameters instead.
  const module = `${text(file.statements.slice(0, split))}
export async function call({ ${free.join(", ")} }: Record<string, any>): Promise<void> {
${text(file.statements.slice(split))}
}`;
  // CommonJS without interop helpers: `import X from "m"` reads `require("m").default`, as on an ES module namespace.
  const { outputText } = ts.transpileModule(module, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: false },
  });
  return {
    limits: limiterLimits(file),
    free,
    start(modules) {
      const exports: { call?: (free: Readonly<Record<string, unknown>>) => Promise<void> } = {};
      const require = (name: string): unknown => {
        if (!(name in modules)) throw new Error(`the quick start imports "${name}", which the test does not provide`);
        return modules[name];
      };
      new Function("require", "exports", outputText)(require, exports);
      const run = exports.call!;
      return {
        call(values) {
          const missing = free.filter((name) => !(name in values));
          if (missing.length > 0) throw new Error(`the quick start leaves ${missing.join(", ")} free: give a value`);
          return run(values);
        },
      };
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
