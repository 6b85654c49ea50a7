import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * What the archiver counts (server/archive/archiver.ts), as plain numbers it bumps; `registerArchiveMetrics` reads
 * them at scrape time. The hub serves them whether an archiver runs or not (zero without one).
 */
export interface ArchiveCounts {
  /** Runs that archived and trimmed a prefix. */
  runs: number;
  /** Events written to the archive. */
  eventsArchived: number;
  /** Runs that failed (archive unreachable or refusing writes, store down, a run aborted). */
  errors: number;
  /** Sessions with an archived prefix, as of the archiver's last pass over the sessions. */
  archivedSessions: number;
  /** Events and bytes the hot store holds, as of the last pass (bytes: the store's estimate, `SessionSummary.bytes`). */
  hotEvents: number;
  hotBytes: number;
  /** How long the most overdue session has waited past its archive time, as of the last pass (seconds). */
  lagSeconds: number;
}

export function newArchiveCounts(): ArchiveCounts {
  return { runs: 0, eventsArchived: 0, errors: 0, archivedSessions: 0, hotEvents: 0, hotBytes: 0, lagSeconds: 0 };
}

/** The archive's metrics in `registry`, read from `counts` at scrape time. */
export function registerArchiveMetrics(registry: Registry, prefix: string, counts: ArchiveCounts): void {
  const registers = [registry];
  const counter = (name: string, help: string, read: () => number): void => {
    new Counter({
      name: `${prefix}${name}`,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  };
  const gauge = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name: `${prefix}${name}`,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  };
  counter('archive_runs_total', 'Archive runs that archived and trimmed a prefix', () => counts.runs);
  counter('archived_events_total', 'Events written to the archive', () => counts.eventsArchived);
  counter('archive_errors_total', 'Archive runs that failed (nothing trimmed)', () => counts.errors);
  gauge('archived_sessions', 'Sessions with an archived prefix (last archiver pass)', () => counts.archivedSessions);
  gauge('hot_events', 'Events the hot store holds (last archiver pass)', () => counts.hotEvents);
  gauge('hot_bytes', 'Bytes the hot store holds, estimated (last archiver pass)', () => counts.hotBytes);
  gauge('archive_lag_seconds', 'Longest wait past its archive time of a session (last pass)', () => counts.lagSeconds);
}
