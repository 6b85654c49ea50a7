import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { newArchiveCounts, registerArchiveMetrics, type ArchiveCounts } from './archive-metrics.ts';

/** HTTP methods with a label of their own in `http_requests_total`; any other is counted as `OTHER`. */
const HTTP_METHOD_LABELS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The `method` label of an HTTP request: bounded, whatever method the client sent. */
export function httpMethodLabel(method: string | undefined): string {
  return method !== undefined && HTTP_METHOD_LABELS.has(method) ? method : 'OTHER';
}

/** `collect` of a counter whose total is kept as a plain number (see `HubMetrics.hot`): set it at scrape time. */
function readHot(total: () => number): (this: Counter) => void {
  return function (this: Counter): void {
    this.reset();
    this.inc(total());
  };
}

/** Counts a store engine keeps itself, read at scrape time (`EventStore.counters`). */
export interface StoreCounters {
  /** Catch-up pages the Redis engine read through ioredis (`MULTI`) while its raw reader is on. */
  readonly rawReadFallbacks?: number;
  /** Raw catch-up replies of the Redis engine that outgrew their read's byte budget (read again, cut by Redis). */
  readonly rawReadsOverBudget?: number;
}

/**
 * The Prometheus metrics of one hub node, in a registry of its own (several hubs may share a process in tests).
 * Includes prom-client's default process and Node metrics under their standard names (`process_cpu_seconds_total`,
 * `nodejs_eventloop_lag_p99_seconds`, …): the prefix applies to the hub's own metrics only. No series carries the node
 * name: Prometheus tells nodes apart by their `instance` label.
 */
export class HubMetrics {
  readonly registry = new Registry();
  /**
   * Counts bumped on the append and fan-out hot paths as plain numbers (a prom-client call with labels costs a
   * label hash per call); the metrics read them at scrape time.
   */
  readonly hot = {
    deliveries: 0,
    framesSent: 0,
    outboundBufferedPeak: 0,
    appendsQueued: 0,
    appendsCommitted: 0,
    appendsDuplicate: 0,
    appendsFailed: 0,
    eventsAppended: 0,
  };
  readonly connections: Gauge;
  readonly subscriptions: Gauge;
  readonly watchedSessions: Gauge;
  readonly cachedSessions: Gauge;
  readonly appends: Counter<'result'>;
  readonly appendRetries: Counter;
  readonly appendDuration: Histogram;
  readonly groupCommitAppends: Histogram;
  readonly appendsQueued: Gauge;
  readonly eventsAppended: Counter;
  readonly deliveries: Counter;
  readonly framesSent: Counter;
  readonly catchUpReads: Counter;
  readonly catchUpEvents: Counter;
  readonly gapFills: Counter;
  readonly resets: Counter;
  readonly errors: Counter<'code'>;
  readonly httpRequests: Counter<'method' | 'handler' | 'code'>;
  readonly slowConsumerPauses: Counter;
  readonly closes: Counter<'code'>;
  /** Outbound bytes buffered on a connection, observed each time one reaches a new high (`hot.outboundBufferedPeak`: the highest). */
  readonly outboundBuffered: Histogram;
  readonly catchUpRawFallbacks: Counter;
  /** Raw catch-up replies past their read's byte budget (`StoreCounters.rawReadsOverBudget`). */
  readonly catchUpRawOverBudget: Counter;
  /** The store's own counts (set by the hub when its store keeps some). */
  storeCounters: StoreCounters | undefined;

  /** Snapshot builds by result (written, stale, leased, failed): see docs/operations.md#snapshots. */
  readonly snapshotBuilds: Counter<'result'>;
  /** Stored snapshots found corrupt (checksum or decoding) on read: never served, rebuilt from the log. */
  readonly snapshotsCorrupt: Counter;
  /** Subscriptions and HTTP reads served from a snapshot, by outcome (hit: a snapshot; miss: from seq 0). */
  readonly snapshotReads: Counter<'result'>;
  /** What the archiver counts (archive-metrics.ts), read at scrape time. */
  readonly archive: ArchiveCounts = newArchiveCounts();

  constructor(prefix: string) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.connections = new Gauge({ name: `${prefix}connections`, help: 'Open WebSocket connections', registers });
    this.subscriptions = new Gauge({ name: `${prefix}subscriptions`, help: 'Active subscriptions', registers });
    this.watchedSessions = new Gauge({
      name: `${prefix}watched_sessions`,
      help: 'Sessions with a store watch on this node',
      registers,
    });
    this.cachedSessions = new Gauge({
      name: `${prefix}cached_sessions`,
      help: 'Sessions whose validation state is cached for appends',
      registers,
    });
    const hot = this.hot;
    this.appends = new Counter({
      name: `${prefix}appends_total`,
      help: 'Append requests by result (committed, duplicate, error)',
      labelNames: ['result'],
      registers,
      collect() {
        this.reset();
        this.inc({ result: 'committed' }, hot.appendsCommitted);
        this.inc({ result: 'duplicate' }, hot.appendsDuplicate);
        this.inc({ result: 'error' }, hot.appendsFailed);
      },
    });
    this.appendRetries = new Counter({
      name: `${prefix}append_retries_total`,
      help: 'Appends re-validated after another node moved the head',
      registers,
    });
    this.groupCommitAppends = new Histogram({
      name: `${prefix}group_commit_appends`,
      help: 'Appends committed together in one store commit (group commit)',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers,
    });
    this.appendsQueued = new Gauge({
      name: `${prefix}appends_queued`,
      help: 'Appends accepted by this node and not yet answered (waiting for, or in, a commit)',
      registers,
      collect() {
        this.set(hot.appendsQueued);
      },
    });
    this.appendDuration = new Histogram({
      name: `${prefix}append_duration_seconds`,
      help: 'Time from append request to ack',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.eventsAppended = new Counter({
      name: `${prefix}events_appended_total`,
      help: 'Events committed',
      registers,
      collect: readHot(() => hot.eventsAppended),
    });
    this.deliveries = new Counter({
      name: `${prefix}deliveries_total`,
      help: 'Events sent to subscribers (one per event per subscriber)',
      registers,
      collect: readHot(() => hot.deliveries),
    });
    this.framesSent = new Counter({
      name: `${prefix}frames_sent_total`,
      help: 'WebSocket frames sent',
      registers,
      collect: readHot(() => hot.framesSent),
    });
    this.catchUpReads = new Counter({
      name: `${prefix}catchup_reads_total`,
      help: 'Store reads made by subscriptions catching up',
      registers,
    });
    this.catchUpEvents = new Counter({
      name: `${prefix}catchup_events_total`,
      help: 'Events sent during catch-up',
      registers,
    });
    this.catchUpRawFallbacks = new Counter({
      name: `${prefix}catchup_raw_fallbacks_total`,
      help: 'Catch-up pages the Redis engine read through ioredis (MULTI) because its raw RESP reader could not',
      registers,
      collect: readHot(() => this.storeCounters?.rawReadFallbacks ?? 0),
    });
    this.catchUpRawOverBudget = new Counter({
      name: `${prefix}catchup_raw_over_budget_total`,
      help: 'Raw catch-up replies that outgrew their read byte budget: dropped and read again, cut by Redis',
      registers,
      collect: readHot(() => this.storeCounters?.rawReadsOverBudget ?? 0),
    });
    this.gapFills = new Counter({
      name: `${prefix}gap_fills_total`,
      help: 'Missed live notifications filled from the store',
      registers,
    });
    this.resets = new Counter({
      name: `${prefix}resets_total`,
      help: 'reset messages sent (epoch changed)',
      registers,
    });
    this.errors = new Counter({
      name: `${prefix}errors_total`,
      help: 'Error replies by code',
      labelNames: ['code'],
      registers,
    });
    this.httpRequests = new Counter({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests by method, handler (the route) and status code',
      labelNames: ['method', 'handler', 'code'],
      registers,
    });
    this.slowConsumerPauses = new Counter({
      name: `${prefix}slow_consumer_pauses_total`,
      help: 'Live subscriptions switched to catch-up because their connection fell behind',
      registers,
    });
    this.closes = new Counter({
      name: `${prefix}closes_total`,
      help: 'Connections closed by the hub for a limit, by close code (4008 slow consumer, 4029 rate limited)',
      labelNames: ['code'],
      registers,
    });
    this.outboundBuffered = new Histogram({
      name: `${prefix}outbound_buffered_bytes`,
      help: 'Outbound bytes buffered on a connection after a send, observed each time the connection reaches a new high',
      buckets: [1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864],
      registers,
    });
    this.snapshotBuilds = new Counter({
      name: `${prefix}snapshot_builds_total`,
      help: 'Snapshot builds by result (written, stale: the session moved on; leased: another node builds it; failed)',
      labelNames: ['result'],
      registers,
    });
    this.snapshotsCorrupt = new Counter({
      name: `${prefix}snapshots_corrupt_total`,
      help: 'Stored snapshots that failed their checksum or did not decode (never served; rebuilt from the log)',
      registers,
    });
    this.snapshotReads = new Counter({
      name: `${prefix}snapshot_reads_total`,
      help: 'Snapshot reads for joins and HTTP, by result (hit, miss; too_large: a hit above maxFrameBytes, not sent)',
      labelNames: ['result'],
      registers,
    });
    registerArchiveMetrics(this.registry, prefix, this.archive);
  }

  /** A connection's outbound buffer reached a new high of `bytes` (the slow-consumer bound check). */
  bufferedPeak(bytes: number): void {
    this.outboundBuffered.observe(bytes);
    this.hot.outboundBufferedPeak = Math.max(this.hot.outboundBufferedPeak, bytes);
  }
}
