import type { Disposer } from "./types.js";

/** `Symbol.dispose` where the runtime has it (Node 20.4 and later). */
const dispose = (Symbol as { readonly dispose?: symbol }).dispose;

/** `undo` as a {@link Disposer}: runs once, however often called; disposable with `using` where the runtime allows. */
export function disposer(undo: () => void): Disposer {
  let done = false;
  const off = (): void => {
    if (done) return;
    done = true;
    undo();
  };
  if (dispose) Object.defineProperty(off, dispose, { value: off });
  return off;
}
