import type { RedisScriptClient } from "./client.js";
import { replyCode, storeError, StoreUnavailableError } from "./errors.js";
import type { Script } from "./scripts/index.js";
import { untilReady, withTimeout } from "./timeout.js";

/**
 * Runs scripts by SHA1 once the server is known to hold them, by EVAL (which
 * loads them) until then. Sending EVALSHA first and EVAL on NOSCRIPT would
 * re-send a command after the ones that followed it, and a lowering could then
 * land after the booking it should have limited. Sends nothing while the
 * client is not ready (see {@link RedisScriptClient.isReady}): it waits for
 * it, within the same timeout, so a client still connecting at start-up is
 * waited for rather than taken as down.
 */
export class ScriptRunner {
  /** SHA1s the server ran since this runner last saw it lose its script cache. */
  private readonly loaded = new Set<string>();

  constructor(
    private readonly client: RedisScriptClient,
    private readonly timeoutMs: number,
  ) {}

  /** One round trip (two when the server lost its script cache since the last one), raced against the timeout. */
  async run(script: Script, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      const isReady = this.client.isReady;
      if (isReady && !isReady.call(this.client)) await untilReady(() => isReady.call(this.client), this.timeoutMs);
      if (!this.loaded.has(script.sha1)) return await this.load(script, keys, args);
      try {
        return await withTimeout(() => this.client.evalsha(script.sha1, keys, args), this.timeoutMs);
      } catch (error) {
        if (replyCode(error) !== "NOSCRIPT") throw error;
        this.loaded.clear();
        return await this.load(script, keys, args);
      }
    } catch (error) {
      const failure = storeError(error, keys);
      // A server that went away may come back with an empty script cache.
      if (failure instanceof StoreUnavailableError) this.loaded.clear();
      throw failure;
    }
  }

  /** EVAL, which also caches the script: later calls may send its SHA1. */
  private async load(script: Script, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const reply = await withTimeout(() => this.client.eval(script.source, keys, args), this.timeoutMs);
    this.loaded.add(script.sha1);
    return reply;
  }
}
