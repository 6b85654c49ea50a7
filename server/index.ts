export * from './store/event-store.ts';
export * from './auth/index.ts';
