import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { freePort } from '../helpers/free-port.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { runCliHere } from './run-cli.ts';

describe('session-hub export -o: the file is replaced only by a complete export', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let unreachable: string;
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-export-'));

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
    unreachable = `http://127.0.0.1:${await freePort()}`;
    const response = await fetch(`${hub.url}/v1/sessions/run/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ type: 'test/tick', data: { n: 1 } }] }),
    });
    expect(response.status).toBe(201);
  });

  afterAll(async () => {
    await hub?.close();
    await store?.close();
  });

  it('a failed export leaves an existing file as it was, and no temporary file behind', async () => {
    const file = join(dir, 'precious.jsonl');
    writeFileSync(file, 'precious\n');
    const failed = await runCliHere(['export', 'run', '-o', file, '--url', unreachable]);
    expect(failed.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
    expect(readdirSync(dir)).toEqual(['precious.jsonl']);
  });

  it('through a symlink: a failed export truncates nothing; a good one replaces the link, never its target', async () => {
    const target = join(dir, 'target.txt');
    const link = join(dir, 'link.jsonl');
    writeFileSync(target, 'not yours\n');
    symlinkSync(target, link);
    const failed = await runCliHere(['export', 'run', '-o', link, '--url', unreachable]);
    expect(failed.code).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe('not yours\n');
    expect(readlinkSync(link)).toBe(target);

    const done = await runCliHere(['export', 'run', '-o', link, '--url', hub.url]);
    expect(done).toMatchObject({ code: 0, stderr: `exported 1 events of run to ${link}\n` });
    expect(readFileSync(target, 'utf8')).toBe('not yours\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    const [header, event] = readFileSync(link, 'utf8').trim().split('\n');
    expect(JSON.parse(header!) as unknown).toMatchObject({ kind: 'session-hub/metadata', sessionId: 'run' });
    expect(JSON.parse(event!) as unknown).toMatchObject({ seq: 0, type: 'test/tick' });
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
