/**
 * The background writer of bench/archive-append.ts, in a process of its own: 1,000-event sessions committed
 * to Redis 5 a second (`bg-<n>`), until told to stop. Encoding 1,000 events takes milliseconds of one thread: on
 * the hub's thread it would hold up the appends being measured in every run alike and bury the archiver's effect
 * in the baseline's tail; in a deployment such writers are other nodes.
 *
 * `startBackgroundWriter` starts it and resolves once the first session (`bg-warm`) is written.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RedisStore } from '../server/index.ts';
import { fillSessionInStore } from './baselines/xrange.ts';

interface WriterData {
  readonly redisUrl: string;
  readonly keyPrefix: string;
}

export interface BackgroundWriter {
  /** Stops writing; resolves once the thread ended. */
  stop(): Promise<void>;
}

const ENV = 'BENCH_ARCHIVE_WRITER';

export async function startBackgroundWriter(redisUrl: string, keyPrefix: string): Promise<BackgroundWriter> {
  const data: WriterData = { redisUrl, keyPrefix };
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--conditions=source', '--import', 'tsx'],
    env: { ...process.env, [ENV]: JSON.stringify(data) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    void exited.then((code) => reject(new Error(`archive-append: the background writer exited (${String(code)})`)));
  });
  return {
    async stop() {
      child.send('stop');
      const code = await exited;
      if (code !== 0) throw new Error(`archive-append: the background writer exited with ${String(code)}`);
    },
  };
}

async function write(data: WriterData): Promise<void> {
  let writing = true;
  process.once('message', () => (writing = false));
  const writer = await RedisStore.open({ url: data.redisUrl, keyPrefix: data.keyPrefix });
  try {
    await fillSessionInStore(writer, 'bg-warm', 1000);
    process.send!('started');
    for (let n = 0; writing; n++) {
      await fillSessionInStore(writer, `bg-${n}`, 1000);
      await sleep(200);
    }
  } finally {
    await writer.close();
    process.disconnect();
  }
}

const config = process.env[ENV];
if (config !== undefined && process.send !== undefined) await write(JSON.parse(config) as WriterData);
