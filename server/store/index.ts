export * from './event-store.ts';
export * from './session-id.ts';
export { MemoryBackend } from './memory/memory-backend.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory/memory-store.ts';
export { RedisStore, type RedisStoreOptions } from './redis/redis-store.ts';
export { DEFAULT_KEY_PREFIX, sessionKeys, type SessionKeys } from './redis/redis-keys.ts';
export type { StoreErrorReporter } from './watcher-registry.ts';
export type * from './snapshot-store.ts';
export type * from './retention-store.ts';
