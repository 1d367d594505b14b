/** `llm-limiter/redis`: bucket state shared by many processes through Redis. */
export { RedisStore } from "./store.js";
export { RedisGroupStore } from "./group-store.js";
export type { RedisStoreOptions } from "./options.js";
export type { RedisScriptClient } from "./client.js";
export type { RedisClient } from "./clients.js";
export { ioredis, type IoredisClient, type IoredisLike } from "./ioredis.js";
export { nodeRedis, type NodeRedisLike, type NodeRedisEvalOptions } from "./node-redis.js";
export {
  upstash,
  UPSTASH_TIMEOUT_MS,
  type UpstashLike,
  type UpstashOptions,
  type UpstashPipelineLike,
} from "./upstash.js";
export { StoreReplyError, StoreUnavailableError } from "./errors.js";
