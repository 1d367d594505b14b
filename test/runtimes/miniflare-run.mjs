/* global process, console -- run by Node */
// Runs the Worker bundle (argv[2]) in workerd through Miniflare 4 (which needs Node >= 22: the test starts this
// under it) and prints, as one JSON line, the answers to `argv[3]` requests sent at once: one isolate, so they
// share the module's state, as concurrent requests to one Worker do.
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";

const [script, count] = [readFileSync(process.argv[2], "utf8"), Number(process.argv[3] ?? 1)];
// The module listed, not traced: Miniflare would try to resolve testing's `import("node:http")`, which only
// listen() reaches. No nodejs_compat flag: the package must run without it.
const mf = new Miniflare({
  modules: [{ type: "ESModule", path: "worker.js", contents: script }],
  compatibilityDate: "2025-09-01",
});
try {
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await mf.dispatchFetch("http://worker.test/");
      return response.ok ? response.json() : { status: response.status, error: await response.text() };
    }),
  );
  console.log(JSON.stringify(answers));
} finally {
  await mf.dispose();
}
