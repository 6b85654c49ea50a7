export * from './store/index.ts';
