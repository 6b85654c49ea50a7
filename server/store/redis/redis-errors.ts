import { StoreDataError, StoreUnavailableError } from '../event-store.ts';
import { StoreTrimmedError } from '../trimmed-error.ts';

/** Redis error replies that mean "not now" rather than "wrong request". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|OOM|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\b/;
/** The command was refused before it was sent (ioredis with the offline queue disabled). */
const NOT_SENT = /Stream isn't writeable|Connection is closed/;

/**
 * Map an ioredis failure to the store's errors: unreachable or busy Redis → `StoreUnavailableError`
 * (`maybeCommitted` when a commit may have reached Redis), a script's XADD refusing an id → `StoreDataError`
 * (the stream was edited by something else), anything else (the store's own errors among them) is returned
 * unchanged.
 */
export function toStoreError(
  error: unknown,
  operation: string,
  isCommit: boolean,
  /** On a cluster, a node connection that closed fails its in-flight commands with "Connection is closed" too. */
  closedMayBeSent = false,
): unknown {
  if (
    !(error instanceof Error) ||
    error instanceof StoreDataError ||
    error instanceof StoreUnavailableError ||
    error instanceof StoreTrimmedError
  )
    return error;
  if (error.name === 'ReplyError') {
    if (TRANSIENT_REPLY.test(error.message)) {
      return new StoreUnavailableError(`redis ${operation}: ${error.message}`, { cause: error });
    }
    if (error.message.includes('XADD')) {
      return new StoreDataError(`redis ${operation}: the stream does not match its length (${error.message})`, {
        cause: error,
      });
    }
    return error;
  }
  const sent = !NOT_SENT.test(error.message) || (closedMayBeSent && error.message.startsWith('Connection is closed'));
  return new StoreUnavailableError(`redis ${operation}: ${error.message}`, {
    cause: error,
    maybeCommitted: isCommit && sent,
  });
}

/** `RedisStore` was pointed at one node of a Redis Cluster as if it were a single Redis. */
export class ClusterNodeError extends Error {
  override readonly name = 'ClusterNodeError';
  readonly code = 'REDIS_IS_CLUSTER';

  constructor() {
    super(
      'this Redis is a Cluster node: connect with --redis-cluster <url,url,…> (RedisStore option `cluster`), not --redis',
    );
  }
}
