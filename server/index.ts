export * from './store/index.ts';
export * from './auth/index.ts';
