/* global process, console -- run by Node */
// Evaluates a script bundle (argv[2]) in Vercel's edge-runtime VM, the Edge runtime's globals and nothing of
// Node's, then the expression argv[3] (a promise of a JSON string), and prints what it resolves to.
import { readFileSync } from "node:fs";
import { EdgeRuntime } from "edge-runtime";

const runtime = new EdgeRuntime({ initialCode: readFileSync(process.argv[2], "utf8") });
console.log(await runtime.evaluate(process.argv[3]));
