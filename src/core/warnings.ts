/**
 * The default `onWarning`: `process.emitWarning` where there is one (Node, Bun, Deno), looked up per warning;
 * the console elsewhere (Workers, the Edge runtime).
 */
export function emitWarning(warning: Error): void {
  const host = (globalThis as { process?: { emitWarning?: (warning: Error) => void } }).process;
  if (typeof host?.emitWarning === "function") host.emitWarning(warning);
  else console.warn(warning);
}
