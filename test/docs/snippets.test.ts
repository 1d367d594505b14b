import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPTION_SOURCES } from "./options-table.js";
import {
  checkSnippets,
  docSnippets,
  extractCommentSnippets,
  extractSnippets,
  formatProblem,
  ROOT,
  type Snippet,
  type SnippetProblem,
} from "./snippets.js";

/** Every `ts` block of README.md and docs/, and the `@example`s of the options' TSDoc. */
const snippets: Snippet[] = [
  ...docSnippets(),
  ...OPTION_SOURCES.flatMap((file) => extractCommentSnippets(readFileSync(`${ROOT}${file}`, "utf8"), file)),
];

const redisSnippet = snippets.find((s) => s.file === "docs/redis.md");

describe("the documentation's TypeScript", () => {
  it("is found in README.md (a quick start per provider), docs/ and the options' TSDoc", () => {
    const readme = snippets.filter((s) => s.file === "README.md").map((s) => s.heading);
    expect(readme).toEqual(["OpenAI", "Anthropic", "Azure OpenAI", "The manual form: `run`"]);
    const files = new Set(snippets.map((s) => s.file));
    for (const file of ["docs/usage.md", "docs/options.md", "docs/redis.md", "src/options.ts"]) {
      expect(files).toContain(file);
    }
  });

  it("type-checks as a user's ES modules see it: module NodeNext, strict", () => {
    expect(checkSnippets(snippets).map(formatProblem)).toEqual([]);
  }, 120_000);

  it("shows the Redis client set up and shut down as docs/redis.md says", () => {
    const code = redisSnippet?.code ?? "";
    expect(code).toMatch(/autoResendUnfulfilledCommands: false/);
    expect(code.indexOf("limiter.close()")).toBeGreaterThan(0);
    expect(code.indexOf("limiter.close()")).toBeLessThan(code.indexOf(".quit()"));
  });
});

describe("extracting snippets", () => {
  const markdown = [
    "# Title", // 1
    "", // 2
    "## First", // 3
    "```ts", // 4
    "const a = 1;", // 5
    "```", // 6
    "```sh", // 7
    "npm test", // 8
    "```", // 9
    "## `Second`", // 10
    "````md", // 11
    "```ts", // 12
    "not a snippet: quoted inside a Markdown block", // 13
    "```", // 14
    "````", // 15
    "~~~typescript", // 16
    "const b = 2;", // 17
    "~~~", // 18
  ].join("\n");

  it("takes ts blocks with their first line and heading, and nothing inside other blocks", () => {
    expect(extractSnippets(markdown, "x.md")).toEqual([
      { file: "x.md", line: 5, heading: "First", code: "const a = 1;\n" },
      { file: "x.md", line: 17, heading: "`Second`", code: "const b = 2;\n" },
    ]);
  });

  it("takes the @example blocks of TSDoc, the comment's margin taken off", () => {
    const source = ["/**", " * Options.", " * @example", " * ```ts", " * const c = 3;", " * ```", " */"].join("\n");
    expect(extractCommentSnippets(source, "x.ts")).toEqual([
      { file: "x.ts", line: 5, heading: undefined, code: "const c = 3;\n" },
    ]);
  });
});

describe("checking snippets", () => {
  const bad = (file: string, lines: string[]): Snippet[] =>
    extractSnippets(["```ts", ...lines, "```"].join("\n"), file);
  const cases: Snippet[] = [
    // Through the options' type: in src/, the constructor has a second (internal) overload, which would make
    // the error TS2769 (no overload matches) where the published declarations say TS2322.
    ...bad("wrong-type.md", [
      'import type { LimiterOptions } from "llm-limiter";',
      'const options: LimiterOptions = { rpm: "100" };',
    ]),
    ...bad("free-name.md", ["console.log(prompt.length);"]),
    ...bad("declared.md", ["declare const prompt: string;", "console.log(prompt.length);"]),
    ...bad("nocheck.md", ["// @ts-nocheck", "console.log(prompt.length);"]),
    ...(redisSnippet
      ? [
          {
            ...redisSnippet,
            file: "default-import.md",
            code: redisSnippet.code.replace("import { Redis }", "import Redis"),
          },
        ]
      : []),
  ];
  let checked: SnippetProblem[] | undefined;
  const problemsOf = (file: string): string[] =>
    (checked ??= checkSnippets(cases)).filter((p) => p.file === file).map(formatProblem);

  it("reports a type error at its line and column in the Markdown file", () => {
    expect(problemsOf("wrong-type.md")).toEqual([expect.stringMatching(/^wrong-type\.md:3:\d+ TS2322: Type 'string'/)]);
  }, 120_000);

  it("reports a name the snippet leaves free unless a declare line names it", () => {
    expect(problemsOf("free-name.md")).toEqual([expect.stringMatching(/^free-name\.md:2:13 TS2304: .*'prompt'/)]);
    expect(problemsOf("declared.md")).toEqual([]);
  }, 120_000);

  it("refuses @ts-nocheck, which would hide every error", () => {
    expect(problemsOf("nocheck.md")).toEqual([
      "nocheck.md:2:4 @ts-nocheck hides type errors; declare the names a snippet leaves free in a `declare` line",
    ]);
  }, 120_000);

  it("catches the default import of ioredis, which NodeNext does not make constructable", () => {
    expect(redisSnippet).toBeDefined();
    expect(problemsOf("default-import.md").join("\n")).toMatch(/not constructable/);
  }, 120_000);
});
