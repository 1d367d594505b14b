/**
 * The simulated provider of bench/event-loop.ts, in its own process (as a real provider is): forked with an IPC
 * channel, it listens on a free port, sends `{ url }`, answers `"stats"` with the provider's stats and exits on
 * `"close"`. Its limits and delays come as JSON in argv[2].
 */
import { between, createProvider, seededRandom } from "../../src/testing/index.js";
import type { SimulatorSetup } from "./messages.js";

const setup = JSON.parse(process.argv[2] ?? "{}") as SimulatorSetup;
const random = seededRandom(setup.seed);
const provider = createProvider({
  rpm: setup.rpm,
  tpm: setup.tpm,
  seed: setup.seed,
  arrivalDelayMs: () => between(random, 0, setup.networkMs),
  latencyMs: () => between(random, 0, setup.networkMs),
});
const server = await provider.listen();
process.send!({ url: server.url });
process.on("message", (message: unknown) => {
  if (message === "stats") {
    const { rejected, calls } = provider.stats();
    const start = calls[0]?.sentAt ?? 0;
    // When each 429 was decided, from the first call's send: a burst's or the sustained rate's.
    const rejectedAtMs = calls.filter((c) => c.status === 429).map((c) => Math.round(c.receivedAt - start));
    process.send!({ stats: { rejected, rejectedAtMs } });
  }
  if (message === "close") void server.close().then(() => process.exit(0));
});
