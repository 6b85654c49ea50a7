export * from './event-store.ts';
export * from './session-id.ts';
export { MemoryBackend } from './memory-backend.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
