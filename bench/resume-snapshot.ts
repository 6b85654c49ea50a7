/**
 * What resuming from a kept snapshot saves a UI that reloads (docs/client.md, "Survive a page reload"): the bytes
 * the hub sends and the time until the subscription is live, for a fresh `subscribe` from seq 0 against
 * `subscribe(id, { resume: snapshot })` whose snapshot lacks only the last few events. The snapshot goes through
 * `structuredClone` first (what IndexedDB stores); checking and projecting it is part of the resume's time.
 * One hub node on a Redis it starts itself, on loopback.
 *
 * Run on its own: `node --import tsx bench/resume-snapshot.ts [--events 20000] [--new 20]`.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { HubClient } from '../client/index.ts';
import type { SubscribeOptions, SubscriptionSnapshot } from '../client/index.ts';
import { RedisStore } from '../server/index.ts';
import { RedisServer } from '../test/helpers/redis-server.ts';
import { startHub } from '../test/helpers/hub.ts';

const { values } = parseArgs({ options: { events: { type: 'string' }, new: { type: 'string' } } });
const total = Number(values.events ?? 20_000);
const fresh = Number(values.new ?? 20);
const runs = 5;

/** A `ws` that counts the bytes of every frame it receives. */
let received = 0;
class CountingWebSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    this.on('message', (data: Buffer) => (received += data.byteLength));
  }
}

function turnDrafts(turn: number): { type: string; data: unknown }[] {
  const drafts: { type: string; data: unknown }[] = [
    { type: 'user/message', data: { role: 'user', content: `question ${turn}: ${'context '.repeat(20)}` } },
    { type: 'turn/start', data: { turn } },
    { type: 'step/start', data: { turn, step: 1 } },
  ];
  for (let chunk = 0; chunk < 12; chunk++) {
    drafts.push({ type: 'assistant/chunk', data: { turn, step: 1, chunk: `piece ${chunk} of the answer ` } });
  }
  drafts.push(
    {
      type: 'assistant/message',
      data: { turn, step: 1, message: { role: 'assistant', content: 'answer '.repeat(40) } },
    },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
  );
  return drafts;
}

async function timeToLive(
  url: string,
  sessionId: string,
  options: SubscribeOptions | undefined,
): Promise<{ ms: number; bytes: number; messages: number }> {
  const client = new HubClient({ url, WebSocket: CountingWebSocket });
  await new Promise<void>((resolve) => client.once('state', () => resolve()));
  received = 0;
  const started = performance.now();
  const subscription = client.subscribe(sessionId, options);
  await subscription.whenLive();
  const ms = performance.now() - started;
  const result = { ms, bytes: received, messages: subscription.messages.length };
  client.close();
  return result;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const redis = await RedisServer.start();
const store = await RedisStore.open({ url: redis.url, keyPrefix: 'bench-resume:' });
const hub = await startHub({ store });
try {
  const sessionId = 'bench/resume';
  const writer = new HubClient({ url: hub.wsUrl });
  let turn = 0;
  let written = 0;
  const writeUpTo = async (count: number): Promise<void> => {
    while (written < count) {
      const drafts = turnDrafts(++turn).slice(0, count - written);
      await writer.append(sessionId, drafts as never);
      written += drafts.length;
    }
  };
  await writeUpTo(total - fresh);
  const page = new HubClient({ url: hub.wsUrl });
  const before = page.subscribe(sessionId);
  await before.whenLive();
  const kept: SubscriptionSnapshot = structuredClone(before.snapshot());
  page.close();
  await writeUpTo(total);
  const snapshotBytes = Buffer.byteLength(JSON.stringify(kept));

  const full: { ms: number; bytes: number; messages: number }[] = [];
  const resumed: { ms: number; bytes: number; messages: number }[] = [];
  for (let run = 0; run < runs; run++) {
    full.push(await timeToLive(hub.wsUrl, sessionId, undefined));
    resumed.push(await timeToLive(hub.wsUrl, sessionId, { resume: structuredClone(kept) }));
  }
  if (resumed.some((run) => run.messages !== full[0]!.messages)) throw new Error('resumed messages differ');
  const row = (name: string, results: typeof full) =>
    `| ${name} | ${median(results.map((r) => r.bytes)).toLocaleString('en')} | ${median(results.map((r) => r.ms)).toFixed(1)} |`;
  process.stdout.write(
    [
      `log: ${total} events, snapshot: ${total - fresh} events (${(snapshotBytes / 1024).toFixed(0)} KiB as JSON), ${fresh} new; median of ${runs}`,
      '| subscribe | bytes received until live | ms until live |',
      '| --- | --- | --- |',
      row('from seq 0', full),
      row('resume from the snapshot', resumed),
      '',
    ].join('\n'),
  );
  writer.close();
} finally {
  await hub.close();
  await store.close();
  await redis.stop();
}
