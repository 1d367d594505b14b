import type { RedisScriptClient } from "./client.js";
import { replyCode, storeError } from "./errors.js";
import type { Script } from "./scripts/index.js";
import { withTimeout } from "./timeout.js";

/** Runs scripts by SHA1, loading them with EVAL when the server lost its script cache. */
export class ScriptRunner {
  constructor(
    private readonly client: RedisScriptClient,
    private readonly timeoutMs: number,
  ) {}

  /** One round trip (two after a `SCRIPT FLUSH` or a restart), each raced against the timeout. */
  async run(script: Script, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      try {
        return await withTimeout(() => this.client.evalsha(script.sha1, keys, args), this.timeoutMs);
      } catch (error) {
        if (replyCode(error) !== "NOSCRIPT") throw error;
        return await withTimeout(() => this.client.eval(script.source, keys, args), this.timeoutMs);
      }
    } catch (error) {
      throw storeError(error);
    }
  }
}
