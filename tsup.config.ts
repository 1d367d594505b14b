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

export default defineConfig([
  {
    ...shared,
    entry: {
      index: "src/index.ts",
      testing: "src/testing/index.ts",
      redis: "src/redis/index.ts",
      otel: "src/otel/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    // Both builds run at once: leave the CLI's file to the build that writes it (and remove any stale map).
    clean: ["!cli.js"],
    splitting: true,
  },
  // The `llm-limiter` bin: ESM only, no types, one file (the shebang stays on its first line).
  { ...shared, entry: { cli: "src/cli.ts" }, format: ["esm"], splitting: false },
]);
