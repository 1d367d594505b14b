/** The Web Crypto parts used, where the runtime has them (Node >= 19, Bun, Deno, Workers, the Edge runtime do). */
interface WebCrypto {
  randomUUID?: () => string;
  getRandomValues?: (array: Uint8Array) => Uint8Array;
}

/**
 * A random version-4 UUID: `crypto.randomUUID()` where there is one; else from `crypto.getRandomValues`, or
 * `Math.random` as the last resort. Lease and process ids need to be unique among a key's clients, not secret.
 */
export function randomId(): string {
  const crypto = (globalThis as { crypto?: WebCrypto }).crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
