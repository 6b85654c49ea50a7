import type { ArchiveBackend } from '../../server/archive/archive-backend.ts';
import { chunkBody, run } from './archive-helpers.ts';

/** The session and epoch every fault run works on. */
export const FAULT_SESSION = 'acme/fault/run';
export const FAULT_EPOCH = '6f1c1f3e-8f7e-4d71-9c55-1ad0c3e0b6a1';

/** What is archived before the write under test: 100 events (a small last segment, so an append merges it). */
export const before = run(FAULT_SESSION, FAULT_EPOCH, 0, 100);
/** The append under test: 9,000 more events (three segments with the merged one). */
export const appended = run(FAULT_SESSION, FAULT_EPOCH, 100, 9000);
/** The rewrite under test: two bodies in two segments. */
export const rewritten = new Map<number, Uint8Array>([
  [50, chunkBody('[redacted 50]')],
  [5000, chunkBody('[redacted 5000]')],
]);

/** Runs the write under test (the state before it: `before` archived, and for a rewrite or delete `appended` too). */
export async function faultOperation(backend: ArchiveBackend, operation: string): Promise<void> {
  if (operation === 'append') await backend.append(appended);
  else if (operation === 'rewrite') await backend.rewrite(FAULT_SESSION, FAULT_EPOCH, rewritten);
  else if (operation === 'delete') await backend.delete(FAULT_SESSION);
  else throw new Error(`unknown operation ${operation}`);
}
