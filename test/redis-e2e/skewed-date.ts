// Preloaded (`--import`) into a worker whose wall clock is off by E2E_SKEW_MS: only
// `Date.now()` moves, as on a host whose clock drifted; monotonic time is untouched.
const skewMs = Number(process.env.E2E_SKEW_MS ?? "0");
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + skewMs;
