/** `llm-limiter/redis`: bucket state shared by many processes through Redis. */
export { RedisStore } from "./store.js";
export type { RedisStoreOptions } from "./options.js";
export type { RedisScriptClient } from "./client.js";
export { ioredis, type IoredisLike } from "./ioredis.js";
export { nodeRedis, type NodeRedisLike, type NodeRedisEvalOptions } from "./node-redis.js";
export { StoreUnavailableError } from "./errors.js";
