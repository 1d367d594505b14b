import { markUnbilled, type Reservation } from "../core/reservation.js";
import type { EstimateRatios } from "../core/estimate-ratios.js";
import type { Endpoint } from "../estimate/types.js";
import type { FetchSettings } from "./settings.js";
import { observeSse } from "./sse.js";
import { MAX_EVENT_BYTES } from "./sse-events.js";
import { streamUsage } from "./stream-usage.js";
import { tapBody, type TapEnd } from "./tap.js";
import { usageOf, type SettledUsage } from "./usage.js";

/** How much of an error body is read for its retry hint and limit type: what `classifyFailure` parses. */
export const ERROR_BODY_BYTES = 65_536;

/** How long an error body is waited for, past its headers, before the failure is synced without it. */
export const ERROR_BODY_DEADLINE_MS = 1_000;

/** The longest JSON body read for its usage: a longer one is passed on unread, its estimate standing. */
export const MAX_JSON_BYTES = MAX_EVENT_BYTES;

/** Only events that mention a usage are decoded. */
const USAGE_MARKER = '"usage"';

/** What a response is read for. */
export interface Tracking {
  /** The endpoint the request's path names; `undefined`: only its headers are synced. */
  readonly endpoint: Endpoint | undefined;
  /** The usage chunk was asked for by the wrapper, not the caller: hide it. */
  readonly hideUsageChunk: boolean;
  /** The request's signal: its abort releases the reservation at once. */
  readonly signal: AbortSignal | undefined;
  /** The request's model, for what the usage teaches. */
  readonly model: string | undefined;
  /** The prompt as the library estimated it; `undefined` where the estimate is the caller's (nothing is learned). */
  readonly estimatedInput: number | undefined;
  /** Where the usage teaches the provider's count against `estimatedInput`. */
  readonly ratios: EstimateRatios | undefined;
}

/**
 * Hands the caller the response at its headers, for every status, with a body that reads as the source's,
 * and reads it for the reservation on the side: a failure synced at its headers, and a 429's first 64 KiB
 * (its own read, for a short while, even after the caller cancels) for what its body adds; a stream's headers at
 * once, its usage settled when it ends; a JSON body's usage settled as it ends, then its headers synced
 * (they may already count the usage). The reservation is released then, or at once when the caller
 * cancels the body or the request aborts.
 */
export function track(
  reservation: Reservation,
  response: Response,
  tracking: Tracking,
  settings: FetchSettings,
): Response {
  const { status, headers, body } = response;
  const { endpoint, signal } = tracking;
  if (!response.ok) {
    // An error response has no usage and is not billed: the quotas' money and token holds go back.
    markUnbilled(reservation);
    // Synced at once, so that a 429's headers pause admission before its body arrives (if it ever does).
    if (!body || status !== 429) return synced(reservation, response, { status });
    reservation.sync(headers, { status });
    const tapped = tapBody(body, errorTap(reservation, headers, status), {
      signal,
      outlivesCaller: true,
      deadlineMs: ERROR_BODY_DEADLINE_MS,
    });
    return rebuilt(response, tapped);
  }
  if (endpoint === undefined || !body) return synced(reservation, response, { status });
  if (headers.get("content-type")?.includes("text/event-stream")) {
    reservation.sync(headers, { status });
    const usage = streamUsage(endpoint, settings, tracking.hideUsageChunk);
    const observed = observeSse(
      body,
      usage.see,
      () => {
        // Cut short without a usage: the estimate stands.
        if (usage.usage) settled(reservation, usage.usage, tracking, endpoint);
        reservation.release();
      },
      {
        only: USAGE_MARKER,
        mayHide: tracking.hideUsageChunk,
        signal,
        oversized: () => settings.warn(tooLong(`an event of the stream`, MAX_EVENT_BYTES)),
      },
    );
    return rebuilt(response, observed);
  }
  const tap = jsonTap(reservation, headers, status, tracking, endpoint, settings);
  return rebuilt(response, tapBody(body, tap, { signal }));
}

function synced(reservation: Reservation, response: Response, options: { status: number }): Response {
  reservation.sync(response.headers, options);
  reservation.release();
  return response;
}

/**
 * Reads the first {@link ERROR_BODY_BYTES} of a 429's body, then syncs it again with the body: what the body adds
 * (a longer hint, the budget it names) pauses admission; levels and learning took the headers already.
 */
function errorTap(reservation: Reservation, headers: Headers, status: number) {
  const text = new Collector(ERROR_BODY_BYTES);
  return {
    see: (chunk: Uint8Array) => text.add(chunk) && !text.full,
    done: () => {
      const body = parsed(text.text());
      if (body !== undefined) reservation.sync(headers, { status, body });
      reservation.release();
    },
    left: () => reservation.release(),
  };
}

/** Reads a JSON body's usage as it passes, settles it, syncs the headers and releases. */
function jsonTap(
  reservation: Reservation,
  headers: Headers,
  status: number,
  tracking: Tracking,
  endpoint: Endpoint,
  settings: FetchSettings,
) {
  const text = new Collector(MAX_JSON_BYTES);
  return {
    see: (chunk: Uint8Array) => {
      if (text.add(chunk)) return true;
      settings.warn(tooLong("a response body", MAX_JSON_BYTES));
      return false;
    },
    done: (how: TapEnd) => {
      if (how === "end") {
        const json = parsed(text.text()) as { usage?: unknown } | null | undefined;
        const used = typeof json === "object" && json !== null ? usageOf(endpoint, json.usage, settings) : undefined;
        if (used) settled(reservation, used, tracking, endpoint);
      }
      reservation.sync(headers, { status });
      reservation.release();
    },
  };
}

/** Decodes a body's bytes as they pass, up to `limit` bytes. */
class Collector {
  private readonly decoder = new TextDecoder();
  private readonly parts: string[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  /** Takes a chunk (the part of it within the limit); returns whether all of it fitted. */
  add(chunk: Uint8Array): boolean {
    const room = this.limit - this.size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.parts.push(this.decoder.decode(part, { stream: true }));
    this.size += part.length;
    return part === chunk;
  }

  get full(): boolean {
    return this.size >= this.limit;
  }

  text(): string {
    return this.parts.join("") + this.decoder.decode();
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text === "" ? undefined : text;
  }
}

function tooLong(what: string, limit: number): Error {
  return new Error(
    `llm-limiter: ${what} is longer than ${limit} bytes and was not read for its usage; the estimate stands`,
  );
}

/** Settles the usage, and teaches the limiter how the provider counted the prompt it estimated. */
function settled(reservation: Reservation, used: SettledUsage, tracking: Tracking, endpoint: Endpoint): void {
  const { ratios, estimatedInput, model } = tracking;
  if (ratios && estimatedInput !== undefined) ratios.learn(endpoint, model, estimatedInput, used.prompt);
  const { prompt: _prompt, ...usage } = used; // the prompt is for the learning; the rest is what is charged
  try {
    reservation.settle(usage);
  } catch {
    // A usage the limiter cannot take (input and output metered apart, a number given): the estimate stands.
  }
}

/** The response with a new body, keeping what a caller reads: status, headers, URL, whether it was redirected. */
function rebuilt(response: Response, body: ReadableStream<Uint8Array>): Response {
  const next = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperties(next, { url: { value: response.url }, redirected: { value: response.redirected } });
  return next;
}
