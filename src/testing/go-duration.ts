const MS_PER_SECOND = 1_000;
const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;

/**
 * Formats a duration the way Go's `time.Duration.String()` does, at millisecond
 * precision, as OpenAI and Groq send their reset headers: `0s`, `120ms`, `1s`,
 * `7.66s`, `6m0s`, `2m59.56s`, `1h2m3.5s`. Rounds to the nearest millisecond
 * (160000 TPM with 158866 left is 425.25 ms, which OpenAI sends as `425ms`);
 * negative durations read as `0s`.
 */
export function formatGoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  if (total === 0) return "0s";
  if (total < MS_PER_SECOND) return `${total}ms`;
  const hours = Math.floor(total / MS_PER_HOUR);
  const minutes = Math.floor((total % MS_PER_HOUR) / MS_PER_MINUTE);
  const seconds = formatSeconds(total % MS_PER_MINUTE);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** `59560` -> `59.56`, `3000` -> `3`: whole seconds, then the fraction without trailing zeros. */
function formatSeconds(ms: number): string {
  const whole = Math.floor(ms / MS_PER_SECOND);
  const fraction = ms % MS_PER_SECOND;
  if (fraction === 0) return String(whole);
  return `${whole}.${String(fraction).padStart(3, "0").replace(/0+$/, "")}`;
}
