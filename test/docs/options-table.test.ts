import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultCell, documentedOptions, optionTableProblems } from "./options-table.js";
import { ROOT } from "./snippets.js";

const MARKDOWN = readFileSync(`${ROOT}docs/options.md`, "utf8");
const OPTIONS_TS = readFileSync(`${ROOT}src/options.ts`, "utf8");

describe("docs/options.md's tables", () => {
  it("have a row for every option, with the type and @default of its TSDoc", () => {
    expect(optionTableProblems()).toEqual([]);
  }, 30_000);

  it("list every option of LimiterOptions and of Limits, its parent", () => {
    const rows = documentedOptions(MARKDOWN).get("LimiterOptions");
    expect([...(rows?.keys() ?? [])]).toEqual(expect.arrayContaining(["rpm", "tpm", "capacity", "arrivalDelayMs"]));
  });
});

describe("the check", () => {
  it("fails when a default changes in TSDoc", () => {
    // arrivalDelayMs is the only option of src/options.ts whose default is 500.
    const changed = OPTIONS_TS.replace("@default 500", "@default 750");
    expect(changed).not.toBe(OPTIONS_TS);
    expect(optionTableProblems(MARKDOWN, { "src/options.ts": changed })).toEqual([
      "LimiterOptions.arrivalDelayMs: default `500` in the table, `750` from @default",
    ]);
  }, 30_000);

  it("fails when an option has no row, or a row names no option", () => {
    const withoutRow = MARKDOWN.replace(/^\| `maxQueue` .*\n/m, "");
    const extraRow = MARKDOWN.replace(/^(\| `maxQueue` .*\n)/m, "$1| `maxQueues` | `number` | – | A typo. |\n");
    expect(optionTableProblems(withoutRow)).toEqual(["LimiterOptions.maxQueue: no row in docs/options.md"]);
    expect(optionTableProblems(extraRow)).toEqual([
      "LimiterOptions.maxQueues: a row in docs/options.md for no option of LimiterOptions",
    ]);
  }, 30_000);

  it("reads a bare @default as code and prose with code spans or links as it stands", () => {
    expect(defaultCell(undefined)).toBe("–");
    expect(defaultCell('"fail-closed"')).toBe('`"fail-closed"`');
    expect(defaultCell("the limiter's `maxWaitMs`")).toBe("the limiter's `maxWaitMs`");
    expect(defaultCell("as {@link Limits.capacity} says,\n   per dimension")).toBe(
      "as `Limits.capacity` says, per dimension",
    );
  });
});
