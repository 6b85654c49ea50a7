// `session-hub/server`: what an embedder needs to run hub nodes in its own process. Everything else under server/
// is internal (no semver promise).
export { createHub, WS_PATH, type Hub, type HubAddress } from './hub.ts';
export type { HubConfig } from './config.ts';
export { DEFAULT_SNAPSHOT_POLICY, type SnapshotPolicy } from './snapshot/snapshot-policy.ts';
export { openAuth, type HubAction, type HubAuth, type HubPrincipal, type RequestInfo } from './auth/auth-seam.ts';
export { defaultLimits, type HubLimits } from './limits/limits.ts';
export type { AllowedOrigins } from './ws/origin-policy.ts';
export { HubError } from './hub-error.ts';
export { HubErrorCode } from '../shared/protocol.ts';
export type { EventStore } from './store/event-store.ts';
export type { ForkStore, ForkRequest, ForkResult, Lineage, LineageRead } from './store/fork-store.ts';
export { MemoryStore, type MemoryStoreOptions } from './store/memory/memory-store.ts';
export { RedisStore, type RedisStoreOptions } from './store/redis/redis-store.ts';
export type { RedisAuth } from './store/redis/redis-connection.ts';
// The cold tier (HubConfig.archive): `archiveBackendFor('file:/var/lib/archive')`, opened, then run an `Archiver`.
export type { ArchiveBackend } from './archive/archive-backend.ts';
export { archiveBackendFor } from './archive/archive-location.ts';
export { Archiver, type ArchivePolicy, type ArchiverOptions } from './archive/archiver.ts';
// JWT auth (the CLI's --auth-* flags): createHubAuth(createAuthenticator({ key: secretKey(secret) })).
export { createAuthenticator, type AuthenticatorOptions } from './auth/authenticator.ts';
export { createHubAuth } from './auth/hub-auth.ts';
export { secretKey, publicKeyFromPem, jwksKey, type VerificationKey } from './auth/verification-key.ts';
