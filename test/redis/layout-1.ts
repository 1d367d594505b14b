/**
 * The scripts of llm-limiter 0.1.0, which wrote the hash without a layout
 * version, frozen in fixtures/layout-1-scripts.json: what a process not yet
 * upgraded runs during a rolling deploy. `layout.test.ts` checks each against
 * the SHA1 that version pinned.
 */
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { layoutArgs } from "../../src/redis/args.js";
import type { SharedLayout } from "../../src/store/shared-store.js";

interface FrozenScript {
  readonly sha1: string;
  readonly source: string;
}

/** The hash writers among them (the lease scripts touch only the lease set). */
export const LAYOUT_1 = JSON.parse(
  readFileSync(new URL("./fixtures/layout-1-scripts.json", import.meta.url), "utf8"),
) as Record<"book" | "adjust" | "lower" | "pause", FrozenScript>;

const keysOf = (key: string): [string, string] => [`{${key}}:b`, `{${key}}:c`];

/** What 0.1.0's book answered for one request: its marks and the levels after it, as numbers. */
export interface OldBooking {
  readonly admitted: boolean;
  readonly booked: boolean;
  readonly waitMs: number;
  readonly marks: readonly number[];
  readonly levels: readonly number[];
}

/** Books one request as 0.1.0 did (no concurrency limit). */
export async function oldBook(
  raw: Redis,
  key: string,
  of: SharedLayout,
  costs: readonly number[],
): Promise<OldBooking> {
  const args = [...layoutArgs(of), "1", ...costs.map(String), "", "60000", ""];
  const reply = (await raw.eval(LAYOUT_1.book.source, 2, ...keysOf(key), ...args)) as string[];
  const n = of.dimensions.length;
  const before = reply.slice(4, 4 + n).map(Number);
  return {
    admitted: reply[0] === "1",
    booked: reply[1] === "1",
    waitMs: Number(reply[2]),
    marks: before.map((total, i) => total + costs[i]!),
    levels: reply.slice(4 + n).map(Number),
  };
}

/** Adds `deltas` as 0.1.0 did. */
export async function oldAdjust(raw: Redis, key: string, of: SharedLayout, deltas: readonly number[]): Promise<void> {
  await raw.eval(LAYOUT_1.adjust.source, 2, ...keysOf(key), ...layoutArgs(of), ...deltas.map(String));
}

/** Pauses the named dimensions for `ms`, as 0.1.0 did. */
export async function oldPause(raw: Redis, key: string, ms: number, names: readonly string[]): Promise<void> {
  await raw.eval(LAYOUT_1.pause.source, 2, ...keysOf(key), String(ms), ...names);
}
