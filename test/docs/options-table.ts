import { readFileSync } from "node:fs";
import ts from "typescript";
import { cachedHost, ROOT } from "./snippets.js";

/** The files whose option interfaces docs/options.md tabulates. */
export const OPTION_SOURCES = [
  "src/options.ts",
  "src/core/limits.ts",
  "src/core/retry.ts",
  "src/redis/options.ts",
  "src/redis/upstash.ts",
  "src/testing/options.ts",
  "src/group/options.ts",
  "src/ai/options.ts",
  "src/otel/options.ts",
  "src/fetch/options.ts",
] as const;

/** The interfaces docs/options.md must have a table for. */
export const DOCUMENTED = [
  "LimiterOptions",
  "CustomLimit",
  "AcquireOptions",
  "RunOptions",
  "RetryOptions",
  "SyncOptions",
  "RedisStoreOptions",
  "UpstashOptions",
  "ProviderOptions",
  "LimiterGroupOptions",
  "RateLimitMiddlewareOptions",
  "InstrumentOptions",
  "FetchOptions",
] as const;

/** One option as its TSDoc states it, or as a table row does (type and default as Markdown cells). */
export interface OptionRow {
  readonly type: string;
  readonly default: string;
}

/** One option read from the sources. */
interface SourceOption extends OptionRow {
  /** The interface that declares it (a parent's name for an inherited one). */
  readonly declaredIn: string;
  readonly summary: string;
}

const NO_DEFAULT = "–";

/** Whitespace folded, as a Markdown cell shows it. */
const fold = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * A `@default` tag's text as a table cell: a bare value (`500`, `"full"`) is code, as
 * TypeDoc renders it; text with code spans or links in it (`` `undefined`: in memory ``) is
 * prose, a `{@link X}` written as `` `X` ``.
 */
export function defaultCell(tag: string | undefined): string {
  if (tag === undefined) return NO_DEFAULT;
  const text = fold(tag.replace(/\{@link\s+([^}|\s]+)(?:\s*\|[^}]*)?\}/g, "`$1`"));
  return text.includes("`") ? text : `\`${text}\``;
}

/** The source files as a program sees them, `overrides` (path relative to the root → text) in place of the disk. */
function program(overrides: Readonly<Record<string, string>>): ts.Program {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    types: ["node"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const replaced = new Map(Object.entries(overrides).map(([path, text]) => [`${ROOT}${path}`, text]));
  const host = cachedHost(options, replaced);
  return ts.createProgram(
    OPTION_SOURCES.map((path) => `${ROOT}${path}`),
    options,
    host,
  );
}

/** Every option of the exported interfaces in {@link OPTION_SOURCES}, inherited ones included, by interface. */
export function sourceOptions(
  overrides: Readonly<Record<string, string>> = {},
): Map<string, Map<string, SourceOption>> {
  const prog = program(overrides);
  const checker = prog.getTypeChecker();
  const found = new Map<string, Map<string, SourceOption>>();
  for (const path of OPTION_SOURCES) {
    const file = prog.getSourceFile(`${ROOT}${path}`)!;
    for (const statement of file.statements) {
      if (!ts.isInterfaceDeclaration(statement)) continue;
      if (!(ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export)) continue;
      const type = checker.getTypeAtLocation(statement.name);
      const options = new Map<string, SourceOption>();
      for (const property of checker.getPropertiesOfType(type)) {
        const declaration = property.declarations?.[0];
        if (!declaration || !ts.isPropertySignature(declaration) || !declaration.type) continue;
        const doc = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
        const tag = doc?.tags?.find((t) => t.tagName.text === "default");
        const parent = declaration.parent;
        options.set(property.name, {
          declaredIn: ts.isInterfaceDeclaration(parent) ? parent.name.text : "(type literal)",
          summary: fold(ts.getTextOfJSDocComment(doc?.comment) ?? ""),
          type: `\`${fold(declaration.type.getText(declaration.getSourceFile()))}\``,
          default: defaultCell(tag && (ts.getTextOfJSDocComment(tag.comment) ?? "")),
        });
      }
      found.set(statement.name.text, options);
    }
  }
  return found;
}

/** Splits a Markdown table row into its cells; `\|` is a pipe inside a cell. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((cell) => fold(cell.replace(/\\\|/g, "|")));
}

/**
 * The tables of docs/options.md: under each heading that names an interface (`` ## `LimiterOptions` ``),
 * the first table with the columns option, type, default, meaning; rows by option name.
 */
export function documentedOptions(markdown: string): Map<string, Map<string, OptionRow>> {
  const tables = new Map<string, Map<string, OptionRow>>();
  const sections = markdown.split(/^#{2,3} /m).slice(1);
  for (const section of sections) {
    const name = /^`(\w+)`\s*$/m.exec(section.split("\n")[0] ?? "")?.[1];
    if (!name) continue;
    const lines = section.split("\n");
    const head = lines.findIndex((line) => /^\|\s*option\s*\|/.test(line));
    if (head < 0) continue;
    const header = cells(lines[head]!);
    if (header.join(",") !== "option,type,default,meaning") {
      throw new Error(`docs/options.md, ${name}: the table's columns are ${header.join(", ")}`);
    }
    const rows = new Map<string, OptionRow>();
    for (const line of lines.slice(head + 2)) {
      if (!line.startsWith("|")) break;
      const [option = "", type = "", value = "", meaning = ""] = cells(line);
      const key = option.replace(/^`|`$/g, "");
      if (rows.has(key)) throw new Error(`docs/options.md, ${name}: two rows for ${key}`);
      if (meaning === "") throw new Error(`docs/options.md, ${name}.${key}: no meaning`);
      rows.set(key, { type, default: value });
    }
    tables.set(name, rows);
  }
  return tables;
}

/**
 * Where docs/options.md and the TSDoc disagree: an interface without a table, an option
 * without a row (or a row for no option), a type or a default that differs, an option
 * without a TSDoc summary. An option inherited from an interface with a table of its own
 * is listed there only.
 */
export function optionTableProblems(
  markdown = readFileSync(`${ROOT}docs/options.md`, "utf8"),
  overrides: Readonly<Record<string, string>> = {},
): string[] {
  const sources = sourceOptions(overrides);
  const tables = documentedOptions(markdown);
  const problems: string[] = [];
  for (const name of DOCUMENTED) {
    const options = sources.get(name);
    const rows = tables.get(name);
    if (!options) problems.push(`${name}: no such exported interface in ${OPTION_SOURCES.join(", ")}`);
    if (!rows) problems.push(`${name}: no table in docs/options.md`);
    if (!options || !rows) continue;
    for (const [option, source] of options) {
      if (source.declaredIn !== name && tables.has(source.declaredIn)) continue;
      if (source.summary === "") problems.push(`${name}.${option}: no TSDoc summary`);
      const row = rows.get(option);
      if (!row) problems.push(`${name}.${option}: no row in docs/options.md`);
      else {
        if (row.type !== source.type)
          problems.push(`${name}.${option}: type ${row.type} in the table, ${source.type} in TSDoc`);
        if (row.default !== source.default) {
          problems.push(`${name}.${option}: default ${row.default} in the table, ${source.default} from @default`);
        }
      }
    }
    for (const option of rows.keys()) {
      const source = options.get(option);
      if (!source || (source.declaredIn !== name && tables.has(source.declaredIn))) {
        problems.push(`${name}.${option}: a row in docs/options.md for no option of ${name}`);
      }
    }
  }
  return problems;
}
