import { dataNodes, type RedisClient } from './redis-connection.ts';
import { epochKeyPattern, sessionIdOfEpochKey } from './redis-keys.ts';

/**
 * `EventStore.listSessions` of the Redis engine: the ids of the sessions with an epoch key under `keyPrefix` whose
 * id starts with `prefix`, by `SCAN MATCH` on every master (a cluster's keys are spread over them). `call` runs one
 * Redis call, its failure mapped to the store's errors.
 */
export async function listSessionIds(
  redis: RedisClient,
  keyPrefix: string,
  prefix: string,
  call: <T>(send: () => Promise<T>) => Promise<T>,
): Promise<string[]> {
  const sessionIds: string[] = [];
  for (const node of dataNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await call(() =>
        node.scan(cursor, 'MATCH', epochKeyPattern(keyPrefix, prefix), 'COUNT', 1000),
      );
      cursor = next;
      for (const key of keys) {
        const sessionId = sessionIdOfEpochKey(keyPrefix, key);
        if (sessionId?.startsWith(prefix) === true) sessionIds.push(sessionId);
      }
    } while (cursor !== '0');
  }
  return [...new Set(sessionIds)]; // SCAN may return a key twice
}
