import { brotliDecompressSync } from 'node:zlib';
import { PostgresArchive } from '../../server/archive/postgres/pg-archive.ts';
import { createTestDatabase, onDatabase } from '../helpers/postgres.ts';
import type { ArchiveHarness } from './archive-harness.ts';

/** A PostgreSQL archive in a new database of its own, dropped by `close`. */
export async function openPostgresHarness(): Promise<ArchiveHarness> {
  const database = await createTestDatabase('sh_archive');
  const backend = new PostgresArchive({ url: database.url });
  await backend.open();
  const opened: PostgresArchive[] = [];
  return {
    backend,
    reopen: async () => {
      const again = new PostgresArchive({ url: database.url });
      await again.open();
      opened.push(again);
      return again;
    },
    corrupt: (sessionId) =>
      onDatabase(database.url, async (client) => {
        await client.query(
          `UPDATE session_hub_archive_segments
              SET data = set_byte(data, length(data) / 2 + 20, get_byte(data, length(data) / 2 + 20) # 85)
            WHERE session_id = $1 AND first_seq = (SELECT min(first_seq) FROM session_hub_archive_segments WHERE session_id = $1)`,
          [sessionId],
        );
      }),
    liveBytesContain: (sessionId, marker) =>
      onDatabase(database.url, async (client) => {
        const rows = await client.query<{ data: Buffer }>(
          'SELECT data FROM session_hub_archive_segments WHERE session_id = $1',
          [sessionId],
        );
        return rows.rows.some(
          (row) => row.data.includes(marker) || brotliDecompressSync(row.data.subarray(40)).includes(marker),
        );
      }),
    close: async () => {
      await backend.close();
      for (const again of opened) await again.close().catch(() => undefined);
      await database.drop();
    },
  };
}
