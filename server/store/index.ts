export * from './event-store.ts';
export type { EncodedEventPage } from './encoded-page.ts';
export * from './session-id.ts';
export { MemoryBackend, type MemoryBackendOptions } from './memory-backend.ts';
export { DEFAULT_EMPTY_SESSION_EPOCH_TTL_MS } from './empty-epoch-ttl.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { RedisStore, type RedisStoreOptions } from './redis-store.ts';
export { DEFAULT_KEY_PREFIX, sessionKeys, type SessionKeys } from './redis-keys.ts';
export type { StoreErrorReporter } from './watcher-registry.ts';
