/* global process, console -- run by Node */
// Evaluates the script bundle (argv[2]) in Vercel's edge-runtime VM, the Edge runtime's globals and nothing of
// Node's, and prints what its smoke() resolves to as one JSON line.
import { readFileSync } from "node:fs";
import { EdgeRuntime } from "edge-runtime";

const runtime = new EdgeRuntime({ initialCode: readFileSync(process.argv[2], "utf8") });
console.log(await runtime.evaluate("smoke().then(JSON.stringify)"));
