export type * from './json.ts';
export type * from './events.ts';
export * from './errors.ts';
export * from './protocol.ts';
export * from './codec.ts';
export * from './protocol-parse.ts';
