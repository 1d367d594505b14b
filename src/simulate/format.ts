/** How the CLI, the report and the demo print figures. */

const MINUTE_MS = 60_000;

/** A whole number with thousands separators: `12,345`. */
export const int = (n: number): string => Math.round(n).toLocaleString("en-US");

/** `m:ss` (or `m:ss.s` with `tenths`) of a duration in ms; `h:mm:ss` from an hour on. */
export function clock(ms: number, tenths = false): string {
  // Round once, in the smallest unit shown, so 59.96 s reads 1:00.0 and not 0:60.0.
  const unit = tenths ? 100 : 1000;
  const total = tenths ? Math.round(ms / unit) : Math.floor(ms / unit);
  const perMinute = MINUTE_MS / unit;
  const secs = tenths
    ? ((total % perMinute) / 10).toFixed(1).padStart(4, "0")
    : String(total % perMinute).padStart(2, "0");
  const minutes = Math.floor(total / perMinute);
  return minutes < 60
    ? `${minutes}:${secs}`
    : `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}:${secs}`;
}
