/** Why a tap stopped seeing a body. */
export type TapEnd = "end" | "enough" | "error" | "cancel" | "deadline";

/** What looks at a body's bytes as they reach the caller. */
export interface BodyTap {
  /** One chunk, as the caller gets it (read it now: the caller owns it); returns whether to see more. */
  see(chunk: Uint8Array): boolean;
  /** Called once, when the tap has seen all it will (`how`), before or after the caller is done with the body. */
  done(how: TapEnd): void;
  /** The caller cancelled the body, or the request's signal aborted. */
  left?(): void;
}

/** How a body is tapped. */
export interface TapOptions {
  /** The request's signal: its abort counts as the caller leaving. */
  readonly signal?: AbortSignal | undefined;
  /** The tap keeps reading after the caller leaves, until it has seen enough (the source is cancelled then). */
  readonly outlivesCaller?: boolean;
  /** The tap is done (`"deadline"`) this long after the body is tapped. */
  readonly deadlineMs?: number;
}

/**
 * The body as the caller reads it, byte for byte, the same chunks: while the tap wants more it is read as
 * fast as it comes (the caller's reads find it queued), then only as the caller pulls, as an untapped body is.
 * The caller's `cancel()` resolves at once; the source is cancelled then, or once the tap is done if it
 * outlives the caller.
 */
export function tapBody(
  body: ReadableStream<Uint8Array>,
  tap: BodyTap,
  options: TapOptions = {},
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const { signal, outlivesCaller = false, deadlineMs } = options;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let tapping = true;
  let callerGone = false;
  let sourceOver = false;
  let reading: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const cancelSource = (reason?: unknown): void => {
    if (sourceOver) return;
    sourceOver = true;
    reader.cancel(reason).catch(() => undefined);
  };
  const finish = (how: TapEnd): void => {
    if (!tapping) return;
    tapping = false;
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    if (callerGone) cancelSource();
    tap.done(how);
  };
  const leave = (reason?: unknown): void => {
    if (callerGone) return;
    callerGone = true;
    tap.left?.();
    if (!tapping || !outlivesCaller) {
      finish("cancel");
      cancelSource(reason);
    }
  };
  /** The request aborted: the caller's reads fail with its reason, as a raw fetch's do. */
  const onAbort = (): void => {
    if (!callerGone) controller.error(signal?.reason);
    leave(signal?.reason);
  };

  const readOne = async (): Promise<void> => {
    try {
      const { done, value } = await reader.read();
      if (done) {
        sourceOver = true;
        if (!callerGone) controller.close();
        finish("end");
        return;
      }
      if (!callerGone) controller.enqueue(value);
      if (tapping && !tap.see(value)) finish("enough");
    } catch (error) {
      sourceOver = true;
      if (!callerGone) controller.error(error);
      finish("error");
    }
  };
  /** One read at a time, shared by the tap's loop and the caller's pulls. */
  const step = (): Promise<void> => {
    if (sourceOver) return Promise.resolve();
    return (reading ??= readOne().finally(() => (reading = undefined)));
  };
  const drive = async (): Promise<void> => {
    while (tapping && !sourceOver) await step();
  };

  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    pull: () => (callerGone ? undefined : step()),
    cancel: (reason) => leave(reason),
  });
  if (signal?.aborted) onAbort();
  else {
    signal?.addEventListener("abort", onAbort);
    if (deadlineMs !== undefined) {
      timer = setTimeout(() => finish("deadline"), deadlineMs);
      // A body the caller holds keeps the process alive; the tap's own wait should not.
      timer.unref?.();
    }
    void drive();
  }
  return stream;
}
