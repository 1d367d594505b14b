import type { RedisScriptClient } from "../../src/redis/index.js";
import { scripts } from "../../src/redis/scripts/index.js";

/** One call the store made. */
export interface Call {
  readonly command: "evalsha" | "eval";
  /** The script's SHA1 (evalsha) or source (eval). */
  readonly script: string;
  readonly keys: readonly string[];
  readonly args: readonly string[];
}

/** A client that records calls and answers with `answer` (a value, a rejection, or a promise that never settles). */
export function fakeClient(answer: (call: Call) => Promise<unknown>): RedisScriptClient & { readonly calls: Call[] } {
  const calls: Call[] = [];
  const record = (command: Call["command"]) => (script: string, keys: readonly string[], args: readonly string[]) => {
    const call = { command, script, keys, args };
    calls.push(call);
    return answer(call);
  };
  return { calls, evalsha: record("evalsha"), eval: record("eval") };
}

/** A promise that never settles: a server that does not answer. */
export const never = (): Promise<unknown> => new Promise(() => {});

/** The name of the script a call ran (`"book"`, `"adjust"`, …). */
export function scriptOf(call: Call): string | undefined {
  return Object.entries(scripts).find(([, s]) => s.sha1 === call.script || s.source === call.script)?.[0];
}
