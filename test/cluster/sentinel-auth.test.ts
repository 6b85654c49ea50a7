import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../server/cli/cli-args.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { watchChild } from '../helpers/child-watch.ts';
import { RedisSentinelSetup } from '../helpers/redis-sentinel.ts';

// Issue 26 items 5 and 18: Sentinel with passwords (the sentinels' own, and the master's), and a start that a
// sentinel which accepts connections but never answers cannot hold forever.

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));
const masterPassword = 'M4sterPass';
const sentinelPassword = 'S3ntinelPass';

/** `session-hub serve <args>` as a child process: its output so far, its exit code, a stop. */
function serve(args: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  watchChild(child, 'session-hub serve', { exitExpected: true });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output,
    exited,
    started: () => expect.poll(() => /^auth: /m.test(output.stdout), { timeout: 30_000, interval: 50 }).toBe(true),
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('Sentinel with passwords', () => {
  let setup: RedisSentinelSetup;
  beforeAll(async () => {
    setup = await RedisSentinelSetup.start({ sentinels: 1, password: masterPassword, sentinelPassword });
  }, 60_000);
  afterAll(async () => {
    await setup.stop();
  });

  it("opens with the sentinels' password and the master's, and commits on the master", async () => {
    const store = await RedisStore.open({
      sentinels: setup.sentinelList.split(','),
      sentinelName: setup.name,
      sentinelAuth: { password: sentinelPassword },
      masterAuth: { password: masterPassword },
      onError: () => undefined,
    });
    try {
      const result = await store.commit({ sessionId: 's', expectedSeq: 0, events: [{ type: 'test/event', data: {} }] });
      expect(result.status).toBe('committed');
      const page = await store.readStoredPage('s', 0, 10); // the catch-up socket logs in with the master's password
      expect(page.bodies).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("does not open without the sentinels' password, nor with the wrong one", async () => {
    for (const sentinelAuth of [undefined, { password: 'wrong' }]) {
      const opening = RedisStore.open({
        sentinels: setup.sentinelList.split(','),
        sentinelName: setup.name,
        ...(sentinelAuth === undefined ? {} : { sentinelAuth }),
        masterAuth: { password: masterPassword },
        connectTimeoutMs: 1500,
        onError: () => undefined,
      });
      await expect(opening).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    }
  });

  it('serve takes --redis-sentinel-password and --redis-master-password (or their variables), and never prints them', async () => {
    const node = serve(['--redis-sentinels', setup.sentinelList, '--redis-sentinel-name', setup.name], {
      SESSION_HUB_REDIS_SENTINEL_PASSWORD: sentinelPassword,
      SESSION_HUB_REDIS_MASTER_PASSWORD: masterPassword,
    });
    await node.started();
    expect(node.output.stdout).toMatch(/^engine: redis \(sentinel sh-master via /m);
    expect(await node.stop()).toBe(0);
    const output = node.output.stdout + node.output.stderr;
    expect(output).not.toContain(sentinelPassword);
    expect(output).not.toContain(masterPassword);
  });
});

describe('serve: Sentinel arguments', () => {
  it('reads the Sentinel passwords from flags or environment, only with --redis-sentinels', () => {
    const sentinels = ['--redis-sentinels', 'h:26379', '--redis-sentinel-name', 'm'];
    expect(
      parseServeArgs([...sentinels, '--redis-sentinel-password', 'a', '--redis-master-password', 'b'], {}),
    ).toMatchObject({ redisSentinelPassword: 'a', redisMasterPassword: 'b' });
    expect(
      parseServeArgs(sentinels, { SESSION_HUB_REDIS_SENTINEL_PASSWORD: 'c', SESSION_HUB_REDIS_MASTER_PASSWORD: 'd' }),
    ).toMatchObject({ redisSentinelPassword: 'c', redisMasterPassword: 'd' });
    expect(() => parseServeArgs(['--redis', 'redis://x:1', '--redis-master-password', 'b'], {})).toThrow(
      'go with --redis-sentinels',
    );
    expect(() => parseServeArgs(['--redis-sentinel-password', 'a'], {})).toThrow('go with --redis-sentinels');
  });
});

describe('serve: a sentinel that never answers', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    silent = createServer((socket) => {
      sockets.add(socket); // accepted, read, never answered
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('prints one fatal line and exits with code 1 (it used to print it and never exit)', async () => {
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    const node = serve(['--redis-sentinels', `127.0.0.1:${address.port}`, '--redis-sentinel-name', 'main']);
    expect(await node.exited).toBe(1);
    expect(node.output.stderr).toMatch(
      /^session-hub: could not open the store at sentinel main via 127\.0\.0\.1:\d+: /,
    );
    expect(sockets.size).toBeGreaterThan(0); // the node did reach the sentinel
  });
});
