import type { Pool, PoolClient } from 'pg';

/** The schema version this code writes and reads (`session_hub_schema`, component `archive`). */
export const ARCHIVE_SCHEMA_VERSION = 1;

/** The advisory lock key that serialises migrations across hub nodes starting together ("shar" + 1). */
const MIGRATION_LOCK = 0x73686172_01;

/** The database holds a newer archive schema than this code knows: refused, nothing changed. */
export class ArchiveSchemaError extends Error {
  override readonly name = 'ArchiveSchemaError';
  readonly code = 'ARCHIVE_SCHEMA_NEWER';
}

/**
 * The migrations, in order: `migrations[i]` takes the schema from version i to i + 1. Tables are named
 * `session_hub_*` so they can share a database; ids sort by their UTF-8 bytes (`COLLATE "C"`), as the file backend
 * lists them.
 */
const migrations: readonly (readonly string[])[] = [
  [
    `CREATE TABLE session_hub_archive_sessions (
       session_id text COLLATE "C" PRIMARY KEY,
       epoch text NOT NULL,
       start_seq bigint NOT NULL CHECK (start_seq >= 0),
       next_seq bigint NOT NULL CHECK (next_seq > start_seq),
       bytes bigint NOT NULL CHECK (bytes >= 0),
       first_time bigint NOT NULL,
       last_time bigint NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE session_hub_archive_segments (
       session_id text COLLATE "C" NOT NULL
         REFERENCES session_hub_archive_sessions (session_id) ON DELETE CASCADE,
       first_seq bigint NOT NULL,
       count integer NOT NULL CHECK (count > 0),
       bytes bigint NOT NULL CHECK (bytes >= 0),
       sha256 bytea NOT NULL,
       data bytea NOT NULL,
       PRIMARY KEY (session_id, first_seq)
     )`,
    // Segments are brotli-compressed already: store them out of line without another compression attempt.
    `ALTER TABLE session_hub_archive_segments ALTER COLUMN data SET STORAGE EXTERNAL`,
  ],
];

async function currentVersion(client: PoolClient): Promise<number> {
  const result = await client.query<{ version: number }>(
    `SELECT version FROM session_hub_schema WHERE component = 'archive'`,
  );
  return result.rows[0]?.version ?? 0;
}

/**
 * Creates or migrates the archive schema, in one transaction under an advisory lock (nodes starting together
 * migrate once). A database whose archive schema is newer than `ARCHIVE_SCHEMA_VERSION` is refused with
 * `ArchiveSchemaError` and left as it is.
 */
export async function migrateArchiveSchema(pool: Pool, targetVersion = ARCHIVE_SCHEMA_VERSION): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      // DDL only when there is something to migrate: a schema at the current version opens on a read-only database.
      const exists = await client.query<{ found: string | null }>(`SELECT to_regclass('session_hub_schema') AS found`);
      if (exists.rows[0]?.found === null) {
        await client.query(
          `CREATE TABLE session_hub_schema (
             component text PRIMARY KEY,
             version integer NOT NULL,
             migrated_at timestamptz NOT NULL DEFAULT now()
           )`,
        );
      }
      const version = await currentVersion(client);
      if (version > targetVersion) {
        throw new ArchiveSchemaError(
          `the database's archive schema is version ${version}, newer than this session-hub knows (${targetVersion}): upgrade session-hub, or point --archive at another database`,
        );
      }
      for (let from = version; from < targetVersion; from++) {
        for (const statement of migrations[from]!) await client.query(statement);
      }
      if (version < targetVersion) {
        await client.query(
          `INSERT INTO session_hub_schema (component, version) VALUES ('archive', $1)
           ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()`,
          [targetVersion],
        );
      }
      await client.query('COMMIT');
      return targetVersion;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}
