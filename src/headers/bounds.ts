/** Milliseconds in a second. */
export const SECOND = 1_000;
/** Milliseconds in a minute. */
export const MINUTE = 60_000;
/** Milliseconds in an hour. */
export const HOUR = 3_600_000;
/** Milliseconds in a day. */
export const DAY = 86_400_000;
/** A month, as the dialects that name one take it (Mistral's `-tokens-month`): 30 days. */
export const MONTH = 30 * DAY;

/**
 * How many header entries are read. Real responses carry a few dozen; the cap keeps a
 * broken proxy's flood of headers from costing more than a bounded amount of work.
 */
export const MAX_HEADERS = 256;
/** Longer header names are skipped: none that we read is near this long. */
export const MAX_NAME_LENGTH = 128;
/**
 * Longer header values are dropped unread: every value we read fits easily (the longest,
 * an IETF policy list, is tens of characters), and a megabyte value must cost O(1).
 */
export const MAX_VALUE_LENGTH = 256;
/** A limit or remaining count above this is absurd (it loses integer precision near 2^53). */
export const MAX_COUNT = 1e15;
/**
 * The longest window a header may set: a budget reported over a longer one (an IETF `w` of years) is
 * metered over a month, so that one response cannot lock a budget for longer.
 */
export const MAX_WINDOW_MS = MONTH;
/** A reset or retry delay further away than this is absurd: no provider meters beyond a year. */
export const MAX_DURATION_MS = 366 * DAY;
/**
 * The longest wait a retry hint is taken to ask for: a month (a monthly quota resets within 31 days). A longer
 * hint waits this long; a pause that long still ends at the first later response that shows room.
 */
export const MAX_RETRY_MS = 31 * DAY;
