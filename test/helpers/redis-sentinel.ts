import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { killChild, RedisServer, spawnRedisUntil } from './redis-server.ts';

export interface RedisSentinelOptions {
  /** The name the sentinels monitor the master under. Default `sh-master`. */
  readonly name?: string;
  /** Sentinels (quorum: a majority). Default 3. */
  readonly sentinels?: number;
  /** `down-after-milliseconds`: how long the master may be silent before a failover starts. Default 1000 ms. */
  readonly downAfterMs?: number;
  /** The master's and the replica's password (`requirepass`, `masterauth`; the sentinels' `auth-pass`). */
  readonly password?: string;
  /** The sentinels' own password (their `requirepass`; they use it with each other too). */
  readonly sentinelPassword?: string;
}

/**
 * A real Sentinel setup of child processes on free loopback ports, for tests: one master, one replica and
 * `sentinels` sentinels (quorum 2 of 3) monitoring them. `stop()` kills every process and deletes every data dir
 * (also when `start` fails half-way).
 */
export class RedisSentinelSetup {
  readonly name: string;
  readonly master: RedisServer;
  readonly replica: RedisServer;
  readonly sentinelPorts: number[] = [];
  readonly #sentinels: ChildProcess[] = [];
  readonly #dir: string;
  readonly #options: RedisSentinelOptions;

  private constructor(
    name: string,
    master: RedisServer,
    replica: RedisServer,
    dir: string,
    options: RedisSentinelOptions,
  ) {
    this.name = name;
    this.master = master;
    this.replica = replica;
    this.#dir = dir;
    this.#options = options;
  }

  /** `host:port,…` of the sentinels (the form `--redis-sentinels` takes). */
  get sentinelList(): string {
    return this.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
  }

  static async start(options: RedisSentinelOptions = {}): Promise<RedisSentinelSetup> {
    const name = options.name ?? 'sh-master';
    const { password, sentinelPassword } = options;
    const auth = password === undefined ? {} : { password, extraArgs: ['--masterauth', password] };
    const master = await RedisServer.start(auth);
    let replica: RedisServer | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-sentinel-'));
    try {
      replica = await RedisServer.start({
        ...auth,
        extraArgs: [...(auth.extraArgs ?? []), '--replicaof', '127.0.0.1', String(master.port)],
      });
      const setup = new RedisSentinelSetup(name, master, replica, dir, options);
      try {
        await setup.#waitForReplicaLink();
        const count = options.sentinels ?? 3;
        for (let index = 0; index < count; index++) {
          const port = await freePort();
          const file = join(dir, `sentinel-${index}.conf`);
          writeFileSync(
            file,
            [
              `port ${port}`,
              'bind 127.0.0.1',
              'protected-mode no',
              `dir ${dir}`,
              `sentinel monitor ${name} 127.0.0.1 ${master.port} ${Math.floor(count / 2) + 1}`,
              `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
              `sentinel failover-timeout ${name} 10000`,
              `sentinel parallel-syncs ${name} 1`,
              ...(password === undefined ? [] : [`sentinel auth-pass ${name} ${password}`]),
              ...(sentinelPassword === undefined ? [] : [`requirepass ${sentinelPassword}`]),
              '',
            ].join('\n'),
          );
          setup.#sentinels.push(await spawnRedisUntil([file, '--sentinel'], '+monitor master'));
          setup.sentinelPorts.push(port);
        }
        await setup.#waitForSentinelsToKnowEachOther(count);
        return setup;
      } catch (error) {
        await setup.stop();
        throw error;
      }
    } catch (error) {
      await Promise.all([master.stop(), replica?.stop()]);
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The port of the master the sentinels currently name. */
  async currentMasterPort(): Promise<number> {
    const sentinel = this.#sentinelClient(this.sentinelPorts[0]!);
    try {
      const reply = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name)) as [string, string];
      return Number(reply[1]);
    } finally {
      sentinel.disconnect();
    }
  }

  /** Kill every process and delete every data dir. */
  async stop(): Promise<void> {
    await Promise.all(this.#sentinels.map((child) => killChild(child)));
    await Promise.all([this.master.stop(), this.replica.stop()]);
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #sentinelClient(port: number): Redis {
    const { sentinelPassword } = this.#options;
    return new Redis({
      port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 1,
      ...(sentinelPassword === undefined ? {} : { password: sentinelPassword }),
    });
  }

  async #poll(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`sentinel setup: ${what} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async #waitForReplicaLink(): Promise<void> {
    await this.#poll('the replica is not linked to its master', async () => {
      const redis = new Redis(this.replica.url, {
        maxRetriesPerRequest: 1,
        ...(this.#options.password === undefined ? {} : { password: this.#options.password }),
      });
      try {
        return /master_link_status:up/.test(await redis.info('replication'));
      } finally {
        redis.disconnect();
      }
    });
  }

  async #waitForSentinelsToKnowEachOther(count: number): Promise<void> {
    await this.#poll('the sentinels did not discover each other and the replica', async () => {
      for (const port of this.sentinelPorts) {
        const sentinel = this.#sentinelClient(port);
        try {
          const master = (await sentinel.call('SENTINEL', 'MASTER', this.name)) as string[];
          const field = (name: string): number => Number(master[master.indexOf(name) + 1]);
          if (field('num-other-sentinels') !== count - 1 || field('num-slaves') < 1) return false;
        } finally {
          sentinel.disconnect();
        }
      }
      return true;
    });
  }
}
