/**
 * Runs `task` once the microtasks queued so far, and those they queue, have run: `process.nextTick` where
 * there is one (Node, Bun, Deno; called from a microtask it runs after the microtask queue drains), a
 * zero-delay timer elsewhere (Workers, the Edge runtime). `queueMicrotask` would run it in the middle of them.
 * Looked up once, at load: the hot path pays no lookup.
 */
export const afterMicrotasks: (task: () => void) => void = pickAfterMicrotasks(
  (globalThis as { process?: { nextTick?: (task: () => void) => void } }).process,
);

function pickAfterMicrotasks(host: { nextTick?: (task: () => void) => void } | undefined): (task: () => void) => void {
  const nextTick = host?.nextTick;
  if (typeof nextTick === "function") return (task) => nextTick.call(host, task);
  return (task) => void setTimeout(task, 0);
}
