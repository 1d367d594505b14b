/**
 * The default `arrivalDelayMs`: after a bucket is drawn from full, refill
 * starts this much later (the provider may not have seen the draws yet).
 */
export const ARRIVAL_DELAY_MS = 500;

/**
 * The most the refill after a full bucket can start late for calls admitted
 * spread out: the delay, plus the span of one batch of draws (a delay's eighth).
 */
export const ARRIVAL_ALLOWANCE_MS = ARRIVAL_DELAY_MS + ARRIVAL_DELAY_MS / 8;
