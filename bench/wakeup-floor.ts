/**
 * `node --import tsx bench/wakeup-floor.ts`: what one message costs a server that does nothing with it, at the
 * fixed rates the bench uses, on this machine. A bare Node TCP echo server (its own process, `process.cpuUsage()`)
 * and redis-server answering `ECHO` (its `INFO cpu`) get one 200-byte message at a time at 20, 200, 1,000 and 5,000
 * per second. At low rates each message wakes the process from idle, and that wake-up, not the work, is most of the
 * cost: the floor under any per-append CPU target at 200 appends/s (docs/performance.md).
 */
import { connect, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { RedisServer } from '../test/helpers/redis-server.ts';
import { cpuMs } from './child/messages.ts';
import { ServerProcess } from './child/spawn.ts';
import { runOpenLoop } from './load.ts';
import { redisCpuMs } from './redis-stats.ts';

export interface WakeupFloor {
  readonly ratePerSec: number;
  /** CPU µs of the Node TCP echo process per message. */
  readonly nodeEchoMicros: number;
  /** CPU µs of redis-server per `ECHO`. */
  readonly redisEchoMicros: number;
}

export interface WakeupFloorOptions {
  readonly rates: readonly number[];
  readonly warmupMs: number;
  readonly durationMs: number;
}

const MESSAGE = Buffer.alloc(200, 0x61);
const REDIS_ECHO = Buffer.from(`*2\r\n$4\r\nECHO\r\n$${MESSAGE.length}\r\n${MESSAGE.toString('latin1')}\r\n`, 'latin1');

/** Write `message` at `ratePerSec` for `ms` (open loop, bench/load.ts); returns how many were written. */
async function writeAtRate(socket: Socket, message: Buffer, ratePerSec: number, ms: number): Promise<number> {
  const { sent } = await runOpenLoop({ ratePerSec, durationMs: ms, fire: () => socket.write(message) });
  return sent;
}

async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('data', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** CPU per message of both servers at each rate; one echo process and one redis-server for all rates. */
export async function measureWakeupFloor(options: WakeupFloorOptions): Promise<WakeupFloor[]> {
  const echo = await ServerProcess.start({
    entry: 'baseline-process.ts',
    config: { kind: 'tcp-echo' },
    name: 'tcp-echo',
  });
  const redisServer = await RedisServer.start();
  const stats = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  const echoSocket = await openSocket(echo.ports[0]!);
  const redisSocket = await openSocket(redisServer.port);
  try {
    const floors: WakeupFloor[] = [];
    for (const ratePerSec of options.rates) {
      await writeAtRate(echoSocket, MESSAGE, ratePerSec, options.warmupMs);
      await echo.mark();
      const echoed = await writeAtRate(echoSocket, MESSAGE, ratePerSec, options.durationMs);
      const echoCost = await echo.sample();
      await writeAtRate(redisSocket, REDIS_ECHO, ratePerSec, options.warmupMs);
      const redisBefore = await redisCpuMs(stats);
      const answered = await writeAtRate(redisSocket, REDIS_ECHO, ratePerSec, options.durationMs);
      const redisAfter = await redisCpuMs(stats);
      floors.push({
        ratePerSec,
        nodeEchoMicros: (cpuMs(echoCost) * 1000) / echoed,
        redisEchoMicros: ((redisAfter - redisBefore) * 1000) / answered,
      });
    }
    return floors;
  } finally {
    echoSocket.destroy();
    redisSocket.destroy();
    stats.disconnect();
    await echo.stop().catch(() => undefined);
    await redisServer.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const floors = await measureWakeupFloor({ rates: [20, 200, 1000, 5000], warmupMs: 1000, durationMs: 4000 });
  console.log('messages/s  Node TCP echo, µs CPU per message  redis-server ECHO, µs CPU per command');
  for (const floor of floors) {
    console.log(
      `${String(floor.ratePerSec).padStart(10)}  ${floor.nodeEchoMicros.toFixed(1).padStart(32)}  ${floor.redisEchoMicros.toFixed(1).padStart(37)}`,
    );
  }
}
