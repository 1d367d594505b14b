import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", testing: "src/testing/index.ts", redis: "src/redis/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  target: "node20",
  platform: "node",
  clean: true,
  sourcemap: true,
  splitting: true,
  treeshake: true,
  // Error classes recognise each other by name across builds.
  keepNames: true,
});
