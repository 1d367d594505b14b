/** One server-sent event: its `event:` name (if any) and its `data:` lines joined. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** Decides per complete event whether the caller sees it (`false` hides it). */
export type SseObserver = (event: SseEvent) => boolean;

/** How events are split and observed. */
export interface SplitOptions {
  /** Only events whose text contains this are decoded and observed; the others pass unseen. */
  readonly only?: string;
  /**
   * Whether the observer may hide events. An event's bytes are then held back until it is complete, up
   * to {@link HOLD_BYTES} (a longer one passes as it comes, and cannot be hidden).
   * @default true
   */
  readonly mayHide?: boolean;
  /** Called for each event longer than {@link MAX_EVENT_BYTES}, which is passed on but not observed. */
  readonly oversized?: () => void;
}

/**
 * The longest event read: a Responses API `response.completed` event repeats the whole answer, so a long
 * answer makes a long event; past this, the event is not parsed (its usage is not read).
 */
export const MAX_EVENT_BYTES = 8 * 1024 * 1024;

/**
 * The most of one incomplete event held back from the caller while it may still be hidden: a usage chunk is
 * well under 1 KiB, and an SSE client acts on an event only once it is complete anyway.
 */
export const HOLD_BYTES = 16_384;

/** Splits a byte stream into events as it passes. */
export interface EventSplitter {
  /** Takes the next chunk; returns the bytes to pass on now (the chunk itself when nothing is held or cut). */
  push(chunk: Uint8Array): Uint8Array[];
  /** The source ended: observes the last event, if it had no blank line after it; returns what was held. */
  finish(): Uint8Array[];
}

const LF = 10;
const CR = 13;
const NOTHING = new Uint8Array(0);

/**
 * An event splitter: events end at a blank line (any of `\n`, `\r\n`, `\r` twice, mixed too). Each byte is
 * scanned once (line ends by `indexOf`), with the state a line end split across chunks needs; an event's
 * bytes are copied only while it is incomplete at a chunk's end, and decoded only when it is observed.
 */
export function splitEvents(observe: SseObserver, options: SplitOptions = {}): EventSplitter {
  const { only, mayHide = true, oversized } = options;
  const decoder = new TextDecoder();
  const detector = only === undefined ? undefined : markerDetector(only);
  /** The incomplete event's bytes so far (no longer kept once it is too long to read). */
  const pending = new PendingBytes();
  /** The incomplete event's bytes so far went to the caller (it was too long to hold back). */
  let flushed = false;
  let tooLong = false;
  /** The incomplete event may contain the marker. */
  let marked = false;
  /** At a line's start, right after a line end: a line end here ends the event. */
  let lineEmpty = false;
  /** The last byte was a CR ending a line: an LF first in the next chunk belongs to it. */
  let afterCr = false;
  /** The event ended with a CR at a chunk's end: an LF first in the next chunk belongs to it. */
  let endedOnCr = false;

  /** The event ending at `end` of `chunk` (its bytes: `pending`, then `chunk[start, end)`) is complete. */
  const complete = (chunk: Uint8Array, start: number, end: number, slow: boolean): boolean => {
    let shown = true;
    if (tooLong) oversized?.();
    else if (slow) {
      const text = decoder.decode(pending.with(chunk.subarray(start, end)));
      if (only === undefined || text.includes(only)) shown = observe(parseEvent(text));
    }
    pending.clear();
    const cut = !shown && !flushed;
    flushed = tooLong = marked = false;
    return !cut;
  };

  const push = (chunk: Uint8Array): Uint8Array[] => {
    const n = chunk.length;
    // The detector sees every chunk, in order: it decodes them as one text.
    const slow = (detector ? detector(chunk) : true) || marked;
    const out: Uint8Array[] = [];
    /** The start of the run of `chunk` to pass on. */
    let run = 0;
    /** The first event to end here began in an earlier chunk: its bytes held back so far. */
    let held = mayHide && !flushed && pending.size > 0;
    const ended = (start: number, end: number): void => {
      const heldBefore = held ? pending.copy() : undefined;
      held = false;
      if (complete(chunk, start, end, slow)) {
        if (heldBefore) out.push(heldBefore);
      } else {
        if (start > run) out.push(chunk.subarray(run, start));
        run = end;
      }
    };
    let i = 0;
    let start = 0;
    if (endedOnCr) {
      endedOnCr = false;
      i = start = n > 0 && chunk[0] === LF ? 1 : 0;
      ended(0, i);
    } else if (afterCr) {
      afterCr = false;
      if (n > 0 && chunk[0] === LF) i = 1;
    }
    let lf = -2;
    let cr = -2;
    while (i < n) {
      if (lf !== -1 && lf < i) lf = chunk.indexOf(LF, i);
      if (cr !== -1 && cr < i) cr = chunk.indexOf(CR, i);
      const t = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (t === -1) {
        lineEmpty = false;
        break;
      }
      const empty = lineEmpty && t === i;
      const crAtEnd = chunk[t] === CR && t + 1 === n;
      const width = chunk[t] === CR && !crAtEnd && chunk[t + 1] === LF ? 2 : 1;
      i = t + width;
      if (!empty) {
        lineEmpty = true;
        afterCr = crAtEnd;
      } else if (crAtEnd) {
        endedOnCr = true;
        lineEmpty = false;
      } else {
        ended(start, i);
        start = i;
        lineEmpty = false;
      }
    }
    // The incomplete event's part of this chunk (all of it, when the event waits for an LF after its CR).
    const tail = n - start;
    let runEnd = mayHide && !flushed ? start : n;
    if (tail > 0 || endedOnCr) {
      if (mayHide && !flushed && pending.size + tail > HOLD_BYTES) {
        flushed = true;
        if (start > run) out.push(chunk.subarray(run, start));
        if (pending.size > 0) out.push(pending.copy());
        run = start;
        runEnd = n;
      }
      if (!tooLong && pending.size + tail > MAX_EVENT_BYTES) {
        tooLong = true;
        pending.drop();
      }
      pending.add(chunk.subarray(start));
      if (slow) marked = true;
    }
    if (!mayHide) return [chunk];
    if (run === 0 && runEnd === n && out.length === 0) return [chunk];
    if (runEnd > run) out.push(chunk.subarray(run, runEnd));
    return out;
  };

  const finish = (): Uint8Array[] => {
    if (!endedOnCr && pending.size === 0) return [];
    const held = mayHide && !flushed && pending.size > 0 ? [pending.copy()] : [];
    endedOnCr = false;
    return complete(NOTHING, 0, 0, only === undefined || marked) ? held : [];
  };

  return { push, finish };
}

/** Whether each chunk in turn contains `marker` (an ASCII text), also across the cut between two chunks. */
function markerDetector(marker: string): (chunk: Uint8Array) => boolean {
  const decoder = new TextDecoder();
  const keep = marker.length - 1;
  let carry = "";
  return (chunk) => {
    const text = decoder.decode(chunk, { stream: true });
    const found = text.includes(marker) || (carry + text.slice(0, keep)).includes(marker);
    carry = text.length >= keep ? text.slice(text.length - keep) : (carry + text).slice(-keep);
    return found;
  };
}

/**
 * The bytes of an incomplete event, copied into one buffer that doubles as it grows (a long event comes in
 * many chunks); the caller only ever gets copies of it, so it is reused for the next event.
 */
class PendingBytes {
  private buffer = new Uint8Array(0);
  /** Bytes so far, counted also once they are no longer kept. */
  size = 0;
  private kept = true;

  add(bytes: Uint8Array): void {
    if (this.kept) {
      if (this.size + bytes.length > this.buffer.length) {
        const grown = new Uint8Array(Math.max(2 * this.buffer.length, this.size + bytes.length, 1_024));
        grown.set(this.buffer.subarray(0, this.size));
        this.buffer = grown;
      }
      this.buffer.set(bytes, this.size);
    }
    this.size += bytes.length;
  }

  /** Keeps counting, no longer keeping: the event is too long to read. */
  drop(): void {
    this.kept = false;
    this.buffer = new Uint8Array(0);
  }

  copy(): Uint8Array {
    return this.buffer.slice(0, this.size);
  }

  /** The bytes so far, then `last`: a view to read at once. */
  with(last: Uint8Array): Uint8Array {
    if (this.size === 0) return last;
    this.add(last);
    return this.buffer.subarray(0, this.size);
  }

  clear(): void {
    this.size = 0;
    this.kept = true;
    // A long event's buffer is not kept for the rest of the stream.
    if (this.buffer.length > HOLD_BYTES) this.buffer = new Uint8Array(0);
  }
}

function parseEvent(raw: string): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\n|\r/)) {
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return { event, data: data.join("\n") };
}
