import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL (trust auth on loopback); tests create and drop databases of their own on it. */
export const POSTGRES_ADMIN_URL =
  process.env['SESSION_HUB_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database made for one test file (or test), dropped by `drop` (its connections terminated first). */
export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  /** Runs one statement on the admin database (as an operator would). */
  admin(sql: string, values?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

async function onAdmin<T>(task: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await task(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(stem = 'sh_test'): Promise<TestDatabase> {
  const name = `${stem}_${randomBytes(6).toString('hex')}`;
  await onAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    admin: (sql, values) => onAdmin((client) => client.query(sql, values)),
    drop: () =>
      onAdmin(async (client) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** Runs `task` on a plain connection to `url` (a test acting behind the backend's back). */
export async function onDatabase<T>(url: string, task: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await task(client);
  } finally {
    await client.end();
  }
}
