// A `serve` node with a PostgreSQL archive whose idle connection is terminated (an operator, a failover): the node
// logs one structured `archive trouble` warning (the URL's password masked) and keeps serving; nothing goes to
// stderr as a bare process warning.
import { afterEach, expect, test, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { serve, type Served } from '../security/serve-process.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test('an idle archive connection that breaks is logged as a warning and the node keeps serving', async () => {
  const db: TestDatabase = await createTestDatabase('sh_trouble');
  cleanups.push(() => db.drop());
  const url = new URL(db.url);
  url.password = 'not-a-real-secret';
  const hub: Served = await serve(['--archive', url.toString()], { LOG_LEVEL: 'warn' });
  cleanups.push(() => hub.stop());
  await vi.waitFor(async () => {
    const ended = await db.admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
      [db.name, 'session-hub:archive'],
    );
    expect(ended.rowCount).toBeGreaterThan(0);
  });
  const output = (): string => `${hub.stdout()}\n${hub.stderr()}`;
  await vi.waitFor(() => expect(output()).toContain('"msg":"archive trouble"'), { timeout: 10_000 });
  expect(output()).toContain('57P01');
  expect(output()).not.toContain('not-a-real-secret');
  expect(output()).not.toMatch(/^\(node:\d+\)/m); // a bare process warning
  const health = await fetch(`${hub.url}/v1/sessions/s1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'turn/start', data: { turn: 1 } }] }),
  });
  expect(health.status).toBe(201);
});
