export * from './store/event-store.ts';
