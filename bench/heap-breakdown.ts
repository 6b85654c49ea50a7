/**
 * `node --conditions=source --import tsx bench/heap-breakdown.ts [--connections 2000] [--build dist|source] [--top 30] [--settle 1000] [--keep]
 * [--snapshots before.heapsnapshot after.heapsnapshot]`:
 * where the hub's memory per idle subscribed connection goes. Starts a bench Redis and one hub child (compiled
 * `dist/` by default, rebuilt when stale; `--build source` runs the TypeScript sources through tsx), opens and
 * closes a warm-up round of 200 connections, writes a heap snapshot after full GC, opens `connections` idle
 * subscribers (each on its own session, as the memory scenario does), writes a second snapshot, and prints per
 * connection, as Markdown:
 * - the heap objects added, by kind (constructor, closure name, V8-internal type): count and self bytes;
 * - the same bytes by owner: the nearest dominating object of a few classes (a `Connection`, the `ws` WebSocket,
 *   the `net.Socket`…), i.e. what releasing that object frees;
 * - the average retained size of each owner class.
 * RSS is not reported here (writing a snapshot grows the process); the memory scenario measures it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisServer } from '../test/helpers/redis-server.ts';
import { ensureDistBuild, type HubBuild } from './dist-build.ts';
import { diffGroups, HeapSnapshot } from './heap-snapshot.ts';
import { hubTarget } from './hub-target.ts';
import { connectAll, settledSample } from './memory-run.ts';
import { stopAll } from './targets.ts';

/**
 * Objects whose dominated bytes are reported as theirs (first match from the object up the dominator tree): the
 * per-connection objects, then the node-wide registries whose growth is per-session state (their map entries).
 */
const OWNERS = [
  'Connection',
  'ConnectionSubscriptions',
  'Entry',
  'Subscription',
  'ConnectionGuard',
  'OutboundGate',
  'Pino',
  'SessionChannel',
  'WebSocket',
  'Receiver',
  'Sender',
  'Socket',
  'TCP',
  'IncomingMessage',
  'ChannelRegistry',
  'WatcherRegistry',
  'RedisNotifications',
  'SubscriptionSet',
  'PresenceTracker',
  'WebSocketServer',
];

interface Options {
  readonly connections: number;
  readonly build: HubBuild;
  readonly top: number;
  readonly keep: boolean;
  /** Sample every this many ms after the last connection subscribed until the heap settles, then snapshot. */
  readonly settleMs: number;
  /** Analyse these two snapshots (before, after) instead of running a hub. */
  readonly snapshots?: readonly [string, string];
}

function parseOptions(argv: readonly string[]): Options {
  let connections = 2000;
  let build: HubBuild = 'dist';
  let top = 30;
  let keep = false;
  let settleMs = 1000;
  let snapshots: [string, string] | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    const value = (): string => {
      const next = argv[++index];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--connections') connections = Number.parseInt(value(), 10);
    else if (arg === '--top') top = Number.parseInt(value(), 10);
    else if (arg === '--keep') keep = true;
    else if (arg === '--settle') settleMs = Number.parseInt(value(), 10);
    else if (arg === '--snapshots') snapshots = [value(), value()];
    else if (arg === '--build') {
      const chosen = value();
      if (chosen !== 'dist' && chosen !== 'source') throw new Error('--build is dist or source');
      build = chosen;
    } else throw new Error(`unknown option ${String(arg)}`);
  }
  if (!(connections > 0) || !(top > 0) || !(settleMs >= 0)) {
    throw new Error('--connections and --top must be positive, --settle not negative');
  }
  return { connections, build, top, keep, settleMs, ...(snapshots === undefined ? {} : { snapshots }) };
}

function log(line: string): void {
  process.stderr.write(`[heap ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

const bytes = (value: number): string => value.toFixed(0);
const count = (value: number): string =>
  Math.abs(value - Math.round(value)) < 0.005 ? value.toFixed(0) : value.toFixed(2);

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** Run a hub, take the two snapshots, and return their files. */
async function takeSnapshots(options: Options): Promise<[string, string]> {
  if (options.build === 'dist') ensureDistBuild(log);
  const snapshotDir = mkdtempSync(join(tmpdir(), 'hub-heap-'));
  process.env['BENCH_SNAPSHOT_DIR'] = snapshotDir;
  const redis = await RedisServer.start();
  const target = hubTarget({ quick: false, redisUrl: redis.url }, options.build);
  const [server] = await target.start(1, { exposeGc: true });
  if (server === undefined) throw new Error('no hub');
  const port = server.ports[0]!;
  const label = `heap-${Date.now()}`;
  try {
    const warmup = await connectAll(target, port, 200, `${label}-warmup`);
    for (const connection of warmup) connection.close();
    await sleep(500);
    const first = await server.heapSnapshot();
    log(`snapshot with no connection: ${first.snapshotFile!}`);
    const open = await connectAll(target, port, options.connections, label);
    await settledSample(server, first.heapUsedBytes, options.settleMs);
    const second = await server.heapSnapshot();
    log(`snapshot with ${options.connections} idle subscribers: ${second.snapshotFile!}`);
    for (const connection of open) connection.close();
    return [first.snapshotFile!, second.snapshotFile!];
  } catch (error) {
    if (!options.keep) rmSync(snapshotDir, { recursive: true, force: true });
    throw error;
  } finally {
    await stopAll([server]);
    await redis.stop();
    if (options.keep) log(`snapshots kept in ${snapshotDir}`);
  }
}

async function main(options: Options): Promise<void> {
  const files = options.snapshots ?? (await takeSnapshots(options));
  const before = HeapSnapshot.read(files[0]);
  const after = HeapSnapshot.read(files[1]);
  if (options.snapshots === undefined && !options.keep) {
    rmSync(dirname(files[0]), { recursive: true, force: true });
  }
  const per = options.connections;
  const isOwner = (name: string): boolean => OWNERS.includes(name);
  const kinds = diffGroups(before.groups(), after.groups(), per);
  const owners = diffGroups(before.owners(isOwner), after.owners(isOwner), per);
  const ownedKinds = diffGroups(before.owners(isOwner, true), after.owners(isOwner, true), per);
  const retained = after.retainedBy(isOwner);
  const snapshotTotal = kinds.reduce((sum, group) => sum + group.bytes, 0);
  const out: string[] = [
    `hub: ${options.build === 'dist' ? 'compiled dist/' : 'TypeScript sources through tsx'}, ${per} idle subscribed connections`,
    // Not heapUsed: writing the first snapshot makes V8 keep source positions of every function, which the second
    // sample would count. The memory scenario measures heapUsed and RSS.
    `reachable objects added: ${bytes(snapshotTotal)} B per connection (code: JIT output, not per-connection state)`,
    '',
    '### Added objects per connection, by kind',
    '',
    table(
      ['kind', 'objects', 'self bytes'],
      kinds.slice(0, options.top).map((group) => [group.label, count(group.count), bytes(group.bytes)]),
    ),
    '',
    '### The same bytes by owner (nearest dominating object of these classes)',
    '',
    table(
      ['owner', 'bytes per connection'],
      owners.filter((group) => Math.abs(group.bytes) >= 1).map((group) => [group.label, bytes(group.bytes)]),
    ),
    '',
    `### Owners by kind of object (top ${options.top})`,
    '',
    table(
      ['owner › kind', 'objects', 'self bytes'],
      ownedKinds
        .filter((group) => Math.abs(group.bytes) >= 1)
        .slice(0, options.top)
        .map((group) => [group.label, count(group.count), bytes(group.bytes)]),
    ),
    '',
    `### Average retained size per instance (with ${per} connections open)`,
    '',
    table(
      ['class', 'instances', 'retained bytes each'],
      [...retained].map(([name, group]) => [name, String(group.count), bytes(group.bytes / group.count)]),
    ),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

await main(parseOptions(process.argv.slice(2)));
