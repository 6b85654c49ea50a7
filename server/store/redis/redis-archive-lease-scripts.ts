/**
 * The Redis engine's archive lease scripts (server/store/archive-lease.ts). The lease is a string key of the
 * session's hash tag holding its holder's token, with an expiry; it is taken with `SET NX PX` (no script).
 */

/** Extend the lease if ARGV[1] holds it. KEYS: 1 lease. ARGV: 1 token, 2 ttl ms. Returns 1 when renewed, else 0. */
export const ARCHIVE_LEASE_RENEW_SCRIPT = `#!lua
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** Delete the lease if ARGV[1] holds it. KEYS: 1 lease. Returns 1 when released, else 0. */
export const ARCHIVE_LEASE_RELEASE_SCRIPT = `#!lua
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
