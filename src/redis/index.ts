/** `llm-limiter/redis`: bucket state shared by many processes through Redis. */
export { RedisStore } from "./store.js";
export { RedisGroupStore } from "./group-store.js";
export type { RedisStoreOptions } from "./options.js";
export type { StoreFailurePolicy } from "../store/shared-store.js";
export type { RedisScriptClient } from "./client.js";
export type { RedisClient } from "./clients.js";
export { ioredis } from "./ioredis.js";
export { nodeRedis } from "./node-redis.js";
export { upstash, type UpstashOptions } from "./upstash.js";
export { StoreReplyError, StoreUnavailableError } from "./errors.js";
