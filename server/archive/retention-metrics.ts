import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The retention metrics of one hub node, in the hub's registry (docs/operations.md#metrics): always registered, so
 * a dashboard sees zeros on a node without rules rather than no series.
 */
export class RetentionMetrics {
  /** Sessions this node expired. */
  readonly expiredSessions: Counter;
  /** Sweeps by result: `done`, `leased` (another node holds the sweep lease), `failed`. */
  readonly sweeps: Counter<'result'>;
  /** Store errors met by sweeps (a failed step, or a session that could not be expired). */
  readonly sweepErrors: Counter;
  /** When this node last finished a sweep (unix seconds; 0 before its first). */
  readonly lastSweep: Gauge;

  constructor(registry: Registry, prefix: string) {
    const registers = [registry];
    this.expiredSessions = new Counter({
      name: `${prefix}retention_expired_sessions_total`,
      help: 'Sessions deleted by this node under the retention rules (each leaves a tombstone)',
      registers,
    });
    this.sweeps = new Counter({
      name: `${prefix}retention_sweeps_total`,
      help: 'Retention sweeps by result (done; leased: another node held the sweep lease; failed)',
      labelNames: ['result'],
      registers,
    });
    this.sweepErrors = new Counter({
      name: `${prefix}retention_sweep_errors_total`,
      help: 'Store errors met by retention sweeps (a failed step, or a session that could not be expired)',
      registers,
    });
    this.lastSweep = new Gauge({
      name: `${prefix}retention_last_sweep_timestamp_seconds`,
      help: 'When this node last finished a retention sweep (unix seconds; 0 before its first)',
      registers,
    });
  }
}
