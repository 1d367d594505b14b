const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/**
 * A test-side reader of Go durations (`1h2m3.5s`, `120ms`), written apart from
 * the simulator's formatter so the two cannot share a bug. Returns whole ms.
 */
export function parseGoDurationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.map((p) => p[0]).join("") !== text) throw new Error(`not a Go duration: ${text}`);
  const total = parts.reduce((sum, [, value, unit]) => sum + Number(value) * (UNIT_MS[unit ?? ""] ?? NaN), 0);
  return Math.round(total);
}
