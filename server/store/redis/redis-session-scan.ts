import { dataNodes, type RedisClient } from './redis-connection.ts';
import { epochKeyPattern, sessionIdOfEpochKey } from './redis-keys.ts';

/** Sends one Redis call, mapping its failure to the store's errors. */
export type ScanCall = <T>(send: () => Promise<T>) => Promise<T>;

/**
 * Walks the sessions of a store step by step (retention's sweep) with `SCAN MATCH` on their epoch keys, on every
 * master of a Cluster in turn (one Redis has one). Ids of sessions whose id starts with `sessionPrefix`. (The admin
 * listing walks in one go: redis-list.ts.)
 */
export class SessionScan {
  readonly #redis: RedisClient;
  readonly #keyPrefix: string;
  readonly #call: ScanCall;

  constructor(redis: RedisClient, keyPrefix: string, call: ScanCall) {
    this.#redis = redis;
    this.#keyPrefix = keyPrefix;
    this.#call = call;
  }

  /**
   * One `SCAN` of about `count` keys. The cursor is `<master index>:<SCAN cursor>` (`''` to start and when done):
   * on a Cluster the masters are walked one after the other, in the order the client lists them (a resharding
   * during a walk may make it miss or repeat sessions; the next walk sees them).
   */
  async step(cursor: string, count: number, sessionPrefix = ''): Promise<{ cursor: string; sessionIds: string[] }> {
    const nodes = dataNodes(this.#redis);
    const [indexText = '0', scanCursor = '0'] = cursor === '' ? [] : cursor.split(':');
    const index = Number(indexText);
    const node = nodes[index];
    if (node === undefined || !/^\d+$/.test(scanCursor)) return { cursor: '', sessionIds: [] };
    const pattern = epochKeyPattern(this.#keyPrefix, sessionPrefix);
    const [next, keys] = await this.#call(() => node.scan(scanCursor, 'MATCH', pattern, 'COUNT', count));
    const sessionIds: string[] = [];
    for (const key of keys) {
      const sessionId = sessionIdOfEpochKey(this.#keyPrefix, key);
      if (sessionId?.startsWith(sessionPrefix) === true) sessionIds.push(sessionId);
    }
    if (next !== '0') return { cursor: `${index}:${next}`, sessionIds };
    return { cursor: index + 1 < nodes.length ? `${index + 1}:0` : '', sessionIds };
  }
}
