import { ADMITTED_HEADER, PRIORITY_HEADER, TENANT_HEADER } from "./call-headers.js";

type FetchInput = Parameters<typeof globalThis.fetch>[0];

/** A request as the limited fetch reads it before admission. */
export interface ReadRequest {
  readonly url: URL | undefined;
  readonly method: string;
  /** The JSON object body, when there is one to read. */
  readonly body: Record<string, unknown> | undefined;
  /** Whether the body came as text or bytes in `init`, so that it may be rewritten. */
  readonly rewritable: boolean;
  /** The caller's signal: aborting it while queued rejects the fetch. */
  readonly signal: AbortSignal | undefined;
  /** Another layer already admitted the call (the header was present, and is stripped from `init`). */
  readonly admitted: boolean;
  /** The priority class the call's header names, stripped from `init`. */
  readonly priority: string | undefined;
  /** The tenant the call's header names, stripped from `init`. */
  readonly tenant: string | undefined;
  readonly input: FetchInput;
  readonly init: RequestInit | undefined;
}

/** Reads the URL, method, JSON body and signal of a fetch call; strips the headers meant for llm-limiter. */
export async function readRequest(input: FetchInput, init: RequestInit | undefined): Promise<ReadRequest> {
  const request = input instanceof Request ? input : undefined;
  const url = urlOf(request ? request.url : (input as string | URL));
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const headers = new Headers(init?.headers ?? request?.headers);
  const admitted = headers.has(ADMITTED_HEADER);
  const priority = headers.get(PRIORITY_HEADER) ?? undefined;
  const tenant = headers.get(TENANT_HEADER) ?? undefined;
  if (admitted || priority !== undefined || tenant !== undefined) {
    for (const name of [ADMITTED_HEADER, PRIORITY_HEADER, TENANT_HEADER]) headers.delete(name);
    init = { ...init, headers };
  }
  // Only a JSON POST is estimated: an upload is not read at all.
  const json = !admitted && method === "POST" && (headers.get("content-type") ?? "application/json").includes("json");
  const fromInit = json && init?.body !== undefined && init.body !== null;
  const text = fromInit ? textOf(init!.body!) : json && request?.body ? await request.clone().text() : undefined;
  return {
    url,
    method,
    body: text === undefined ? undefined : jsonObject(text),
    rewritable: fromInit && text !== undefined,
    signal: init?.signal ?? request?.signal ?? undefined,
    admitted,
    priority,
    tenant,
    input,
    init,
  };
}

/** `init` with a new JSON body; a stated content length would no longer hold. */
export function withBody(init: RequestInit | undefined, body: unknown): RequestInit {
  const headers = new Headers(init?.headers);
  headers.delete("content-length");
  return { ...init, headers, body: JSON.stringify(body) };
}

function urlOf(input: string | URL): URL | undefined {
  try {
    return new URL(input);
  } catch {
    return undefined;
  }
}

/** The body as text, for the forms an SDK sends JSON in; `undefined` for forms, blobs and streams. */
function textOf(body: NonNullable<RequestInit["body"]>): string | undefined {
  if (typeof body === "string") return body;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new TextDecoder().decode(body as ArrayBuffer);
  return undefined;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
