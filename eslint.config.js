// @ts-check
import { builtinModules } from "node:module";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The CLI's own files: the `llm-limiter` bin runs on Node alone. */
const CLI_FILES = ["src/cli.ts", "src/plan/args.ts", "src/simulate/progress.ts"];
const NODE_ONLY =
  "the package runs on Workers, the Edge runtime, Deno and Bun, which have no Node built-ins (see docs/runtimes.md)";

export default tseslint.config(
  { ignores: ["dist/", "dist-scratch/", "scratch/", "docs/api/", "coverage/", "bench/vendor/", "test/fixtures/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Prettier wraps code at 120; this catches the comments it leaves long. Strings and test titles may run on.
      "max-len": [
        "error",
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Every entry but the CLI's: no Node built-in module or global. Types are erased, so type imports may stay;
    // a feature found at run time (`globalThis.process?.nextTick`) is how Node's kin are used where they exist.
    files: ["src/**/*.ts"],
    ignores: CLI_FILES,
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: builtinModules.map((name) => ({ name, message: NODE_ONLY, allowTypeImports: true })),
          patterns: [{ group: ["node:*"], message: NODE_ONLY, allowTypeImports: true }],
        },
      ],
      "no-restricted-globals": [
        "error",
        ...["process", "Buffer", "setImmediate", "clearImmediate", "global", "require", "__dirname", "__filename"].map(
          (name) => ({ name, message: `${name}: ${NODE_ONLY}` }),
        ),
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportExpression[source.value=/^node:/]",
          message: `A Node built-in loaded on call: ${NODE_ONLY}; only a Node-only feature may, under an eslint-disable saying so`,
        },
        {
          selector: "CallExpression[optional=false][callee.property.name=/^(unref|ref)$/]",
          message: `Unguarded .unref()/.ref(): timers are numbers or have no unref outside Node and Bun; call it as .unref?.()`,
        },
      ],
    },
  },
);
