import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubProcess } from '../helpers/hub-process.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { RedisSentinelSetup } from '../helpers/redis-sentinel.ts';

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));

/** Run `session-hub serve <args>` to its exit; its exit code and output. */
async function serveUntilExit(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

const note = (n: number) => ({ type: 'test/note', data: { n } });

describe('session-hub serve on a Redis Cluster and through Sentinel', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start();
  });
  afterAll(() => cluster.stop());

  it('refuses --redis pointed at a cluster node, in one line naming --redis-cluster', async () => {
    const { code, stderr } = await serveUntilExit(['--redis', cluster.urls[0]!]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/Cluster node: connect with --redis-cluster/);
  });

  it('serves sessions on every shard with --redis-cluster (from SESSION_HUB_REDIS_CLUSTER too)', async () => {
    const byFlag = await HubProcess.start(['--redis-cluster', cluster.urls.slice(0, 2).join(',')]);
    const byEnv = await HubProcess.start([], { SESSION_HUB_REDIS_CLUSTER: cluster.urls[2]! });
    try {
      expect(byFlag.stdout).toContain(`engine: redis (cluster ${cluster.urls.slice(0, 2).join(',')})`);
      const sessionIds = Array.from({ length: 12 }, (_, index) => `cli/s${index}`);
      for (const [index, sessionId] of sessionIds.entries()) {
        const node = index % 2 === 0 ? byFlag : byEnv;
        const response = await fetch(`${node.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: [note(index)] }),
        });
        expect(response.status).toBe(201);
      }
      for (const node of [byFlag, byEnv]) {
        const listed = (await (await fetch(`${node.url}/v1/sessions`)).json()) as { sessions: { id: string }[] };
        expect(listed.sessions.map((session) => session.id).sort()).toEqual([...sessionIds].sort());
      }
    } finally {
      await Promise.all([byFlag.terminate(), byEnv.terminate()]);
    }
  });

  it('serves through --redis-sentinels / --redis-sentinel-name', async () => {
    const setup = await RedisSentinelSetup.start();
    try {
      const node = await HubProcess.start([
        '--redis-sentinels',
        setup.sentinelList,
        '--redis-sentinel-name',
        setup.name,
      ]);
      try {
        expect(node.stdout).toContain(`engine: redis (sentinel ${setup.name} via ${setup.sentinelList})`);
        const response = await fetch(`${node.url}/v1/sessions/sentinel-1/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: [note(1)] }),
        });
        expect(response.status).toBe(201);
      } finally {
        await node.terminate();
      }
    } finally {
      await setup.stop();
    }
  });

  it('acknowledges appends only once a replica has them with --redis-wait-replicas', async () => {
    const master = await RedisServer.start();
    const replica = await RedisServer.start({ extraArgs: ['--replicaof', '127.0.0.1', String(master.port)] });
    try {
      const view = new Redis(replica.url);
      await expect.poll(() => view.info('replication'), { timeout: 15_000 }).toMatch(/master_link_status:up/);
      view.disconnect();
      const node = await HubProcess.start(['--redis', master.url, '--redis-wait-replicas', '1']);
      try {
        const append = (n: number) =>
          fetch(`${node.url}/v1/sessions/waited/events`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ events: [note(n)], idempotencyKey: `k${n}` }),
          });
        expect((await append(1)).status).toBe(201);
        await replica.kill();
        const refused = await append(2);
        expect(refused.status).toBe(503);
        expect(await refused.json()).toMatchObject({
          error: { code: 'STORE_UNAVAILABLE', details: { maybeCommitted: true } },
        });
      } finally {
        await node.terminate();
      }
    } finally {
      await Promise.all([replica.stop(), master.stop()]);
    }
  });
});
