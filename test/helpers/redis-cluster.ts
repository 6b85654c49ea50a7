import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { RedisServer } from './redis-server.ts';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** Masters (each with `replicasPerMaster` replicas). Default 3. */
  readonly masters?: number;
  /** Default 1. */
  readonly replicasPerMaster?: number;
  /** `cluster-node-timeout`: how long a master may be silent before its replica takes over. Default 1000 ms. */
  readonly nodeTimeoutMs?: number;
}

/** A node of a test cluster, with its role as last read by `topology()`. */
export interface ClusterNodeInfo {
  readonly server: RedisServer;
  readonly id: string;
  readonly role: 'master' | 'replica';
  /** Slots served (masters). */
  readonly slots: readonly number[];
}

/**
 * A real Redis Cluster of child processes on free loopback ports, for tests: `masters` masters with
 * `replicasPerMaster` replicas each, created with `redis-cli --cluster create … --cluster-yes`. `stop()` kills every
 * process and deletes every data dir (also when `start` fails half-way).
 */
export class RedisCluster {
  readonly servers: readonly RedisServer[];

  private constructor(servers: readonly RedisServer[]) {
    this.servers = servers;
  }

  /** Seed URLs, one per node (the form `--redis-cluster` takes, comma-joined). */
  get urls(): string[] {
    return this.servers.map((server) => server.url);
  }

  static async start(options: RedisClusterOptions = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    const replicas = options.replicasPerMaster ?? 1;
    const servers: RedisServer[] = [];
    const cluster = new RedisCluster(servers);
    try {
      for (let index = 0; index < masters * (1 + replicas); index++) {
        servers.push(
          await RedisServer.start({
            extraArgs: [
              '--cluster-enabled',
              'yes',
              '--cluster-port',
              String(await freePort()),
              '--cluster-node-timeout',
              String(options.nodeTimeoutMs ?? 1000),
              // A replica may take over however long its link was down (tests kill masters at will).
              '--cluster-replica-validity-factor',
              '0',
            ],
          }),
        );
      }
      const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
      await run('redis-cli', [
        '--cluster',
        'create',
        ...addresses,
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ]);
      await cluster.waitUntilHealthy();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** A plain connection to one node (the caller disconnects it). */
  connect(server: RedisServer): Redis {
    return new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  }

  /** Send one command to one node and close the connection. */
  async command(server: RedisServer, ...args: (string | number)[]): Promise<unknown> {
    const redis = this.connect(server);
    try {
      const [name, ...rest] = args;
      return await redis.call(String(name), ...rest);
    } finally {
      redis.disconnect();
    }
  }

  /** Every running node's view: id, role, slots (read from the first running node's `CLUSTER SHARDS`). */
  async topology(): Promise<ClusterNodeInfo[]> {
    const alive = this.servers.filter((server) => server.running);
    const nodes: ClusterNodeInfo[] = [];
    for (const server of alive) {
      const id = String(await this.command(server, 'CLUSTER', 'MYID'));
      const info = String(await this.command(server, 'INFO', 'replication'));
      const role = /^role:master/m.test(info) ? 'master' : 'replica';
      const slots: number[] = [];
      if (role === 'master') {
        const lines = String(await this.command(server, 'CLUSTER', 'NODES')).split('\n');
        const mine = lines.find((line) => line.startsWith(id)) ?? '';
        for (const range of mine.split(' ').slice(8)) {
          if (range.startsWith('[')) continue; // a slot being migrated/imported
          const [from, to = from] = range.split('-');
          for (let slot = Number(from); slot <= Number(to); slot++) slots.push(slot);
        }
      }
      nodes.push({ server, id, role, slots });
    }
    return nodes;
  }

  /** The running master serving `slot`. */
  async masterOf(slot: number): Promise<ClusterNodeInfo> {
    const master = (await this.topology()).find((node) => node.role === 'master' && node.slots.includes(slot));
    if (master === undefined) throw new Error(`no running master serves slot ${slot}`);
    return master;
  }

  /** The running replicas of `master`. */
  async replicasOf(master: ClusterNodeInfo): Promise<RedisServer[]> {
    const replicas: RedisServer[] = [];
    for (const node of (await this.topology()).filter((candidate) => candidate.role === 'replica')) {
      const info = String(await this.command(node.server, 'INFO', 'replication'));
      if (new RegExp(`^master_port:${master.server.port}\\b`, 'm').test(info)) replicas.push(node.server);
    }
    return replicas;
  }

  /**
   * Resolves when every running node says `cluster_state:ok`, knows every slot, and every replica's link to its
   * master is up (polls; rejects after `timeoutMs`).
   */
  async waitUntilHealthy(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let problem = '';
      for (const server of this.servers.filter((candidate) => candidate.running)) {
        const info = String(await this.command(server, 'CLUSTER', 'INFO').catch((error: unknown) => String(error)));
        if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) {
          problem = `${server.port}: ${info.split('\n').slice(0, 3).join(' ')}`;
          break;
        }
        const replication = String(await this.command(server, 'INFO', 'replication'));
        if (/^role:slave/m.test(replication) && !/master_link_status:up/.test(replication)) {
          problem = `${server.port}: replica link down`;
          break;
        }
      }
      if (problem === '') return;
      if (Date.now() > deadline) throw new Error(`cluster not healthy after ${timeoutMs} ms: ${problem}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Move `slot` from its master to `target` as `redis-cli --cluster reshard` does: IMPORTING on the target,
   * MIGRATING on the source, MIGRATE the keys in batches, then SETSLOT NODE on both and the other masters.
   * `between` runs after the first batch (while the slot is half-moved).
   */
  async migrateSlot(slot: number, target: ClusterNodeInfo, between?: () => Promise<void>): Promise<void> {
    const source = await this.masterOf(slot);
    if (source.id === target.id) throw new Error(`slot ${slot} is already on ${target.server.port}`);
    await this.command(target.server, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id);
    await this.command(source.server, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id);
    let first = true;
    for (;;) {
      const keys = (await this.command(source.server, 'CLUSTER', 'GETKEYSINSLOT', slot, 10)) as string[];
      if (keys.length === 0) break;
      await this.command(source.server, 'MIGRATE', '127.0.0.1', target.server.port, '', 0, 5000, 'KEYS', ...keys);
      if (first && between !== undefined) await between();
      first = false;
    }
    for (const node of [target, source]) await this.command(node.server, 'CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
    for (const node of (await this.topology()).filter((candidate) => candidate.role === 'master')) {
      await this.command(node.server, 'CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
    }
  }

  /** Kill every node and delete its data. */
  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
  }
}
