export * from './auth-error.ts';
export * from './grants.ts';
export * from './verification-key.ts';
export * from './authenticator.ts';
export * from './token-sources.ts';
export * from './auth-config.ts';
export * from './load-authenticator.ts';
export * from './hub-auth.ts';
