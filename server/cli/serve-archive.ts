import type { ArchiveBackend } from '../archive/archive-backend.ts';
import { archiveBackendFor } from '../archive/archive-location.ts';
import { Archiver } from '../archive/archiver.ts';
import type { ArchiveCounts } from '../archive-metrics.ts';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import type { ArchiveSettings } from './archive-flags.ts';
import { redactError, redactUrl } from './redact-url.ts';

/** The archive of a `serve` node: its backend (opened) and the archiver that runs on it. */
export interface ServeArchive {
  readonly backend: ArchiveBackend;
  readonly archiver: Archiver;
  /** One line for the startup output: where, and when sessions go there. */
  readonly description: string;
  close(): Promise<void>;
}

/** The location with any password masked (a PostgreSQL URL may carry one). */
export function describeArchiveLocation(location: string): string {
  return location.startsWith('postgres') ? redactUrl(location) : location;
}

/**
 * Opens the archive backend `settings` names (rejects with a reason when it cannot: bad location, unreachable);
 * trouble outside any call (an idle PostgreSQL connection that broke) is logged as a warning, the location's
 * password masked.
 */
export async function openServeArchive(settings: ArchiveSettings, logger: Logger): Promise<ArchiveBackend> {
  const onError = (error: Error): void =>
    logger.warn({ err: redactError(error, settings.location) }, 'archive trouble');
  const backend = archiveBackendFor(settings.location, { onError });
  await backend.open();
  return backend;
}

/** Starts the archiver of a node on its hot store and opened backend. */
export function startServeArchive(
  settings: ArchiveSettings,
  backend: ArchiveBackend,
  context: { store: EventStore; logger: Logger; counts: ArchiveCounts; nodeName: string },
): ServeArchive {
  // A tick every 10 s, or more often for short idle times (a quarter of it, at least every 250 ms).
  const tickMs = Math.min(10_000, Math.max(250, Math.floor(settings.policy.archiveAfterMs / 4)));
  const archiver = new Archiver({ ...context, archive: backend, policy: settings.policy, tickMs });
  archiver.start();
  const { archiveAfterMs, hotMaxEvents, hotMaxBytes, idempotencyWindowMs } = settings.policy;
  const triggers = [`idle ${archiveAfterMs / 1000}s`];
  if (hotMaxEvents !== undefined) triggers.push(`over ${hotMaxEvents} hot events`);
  if (hotMaxBytes !== undefined) triggers.push(`over ${hotMaxBytes} hot bytes`);
  const keys = idempotencyWindowMs === undefined ? '' : `; their idempotency keys kept ${idempotencyWindowMs / 1000}s`;
  return {
    backend,
    archiver,
    description: `${describeArchiveLocation(settings.location)} (sessions archived when ${triggers.join(' or ')}${keys})`,
    close: async () => {
      await archiver.stop();
      await backend.close();
    },
  };
}
