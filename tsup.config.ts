import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const shared = {
  target: "node20",
  platform: "node",
  // No sourcemaps in the package: the output is unminified, so stack traces already read as the source does;
  // maps carrying their sources would triple the unpacked size, and maps without them point at src/, which is not
  // published.
  sourcemap: false,
  // Error classes need no kept names: they are told apart by their code (see src/core/errors.ts).
  treeshake: true,
} as const;

/** simulate() runs on virtual time from @sinonjs/fake-timers, a devDependency: see its two uses below. */
const FAKE_TIMERS = "@sinonjs/fake-timers";

/** The notices the licences of the code bundled into the CLI (BSD-3-Clause, MIT) ask to be reproduced. */
const bundledNotices = ["@sinonjs/fake-timers", "@sinonjs/commons", "type-detect"]
  .map((name) => `${name}:\n${readFileSync(`node_modules/${name}/LICENSE`, "utf8").trim()}`)
  .join("\n\n");

export default defineConfig([
  {
    ...shared,
    entry: {
      index: "src/index.ts",
      testing: "src/testing/index.ts",
      redis: "src/redis/index.ts",
      ai: "src/ai/index.ts",
      otel: "src/otel/index.ts",
      headers: "src/headers/index.ts",
      plan: "src/plan/index.ts",
      simulate: "src/simulate/index.ts",
    },
    format: ["esm", "cjs"],
    // `@internal` members (the store protocol RedisStore speaks with the limiter, the constructor a group's
    // members are made with) are the package's own: left out of the declarations, as TypeDoc leaves them out.
    dts: { compilerOptions: { stripInternal: true } },
    // Both builds run at once: leave the CLI's file to the build that writes it (and remove any stale map).
    clean: ["!cli.js"],
    splitting: true,
    // Loaded by simulate() when it runs, from the user's install: the package keeps no runtime dependency.
    external: [FAKE_TIMERS],
  },
  // The `llm-limiter` bin: ESM only, no types, one file (the shebang stays on its first line).
  {
    ...shared,
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    splitting: false,
    // `npx llm-limiter simulate` needs nothing installed: the fake timers are bundled (CommonJS, hence `require`).
    noExternal: [FAKE_TIMERS],
    banner: {
      js: `import { createRequire as __llmLimiterRequire } from "node:module";\nconst require = __llmLimiterRequire(import.meta.url);`,
    },
    footer: { js: `/*\nBundled third-party code and its licences:\n\n${bundledNotices}\n*/` },
  },
]);
