import { performance } from 'node:perf_hooks';
import { HubClient } from '../../client/index.ts';
import { createHub, RedisStore } from '../../server/index.ts';
import type { EventStore, ValidatedDraft } from '../../server/store/event-store.ts';
import { MessageProjector } from '../../shared/index.ts';
import { atMost, type Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';

/** Turns of the streamed-chunk sessions: both sessions derive the same messages (a user and an assistant message per turn). */
const TURNS = 10;
const SIZES = { quick: [1000, 100_000], full: [1000, 1_000_000] };
const ROUNDS = { quick: 3, full: 5 };
const COMMIT_EVENTS = 1000;

export interface JoinSizeResult {
  readonly events: number;
  /** Median time from `subscribe(id, { from: 'snapshot' })` to `live`. */
  readonly joinMs: number;
  /** Bytes of the snapshot state and of the tail events (JSON), what the join carries. */
  readonly snapshotBytes: number;
  readonly messagesBytes: number;
}

/** The drafts of one turn with `chunks` streamed chunks (the assistant message is the same whatever `chunks`). */
function turnDrafts(turn: number, chunks: number): ValidatedDraft[] {
  const drafts: ValidatedDraft[] = [
    { type: 'user/message', data: { role: 'user', content: `question ${turn}` }, surfaceOp: 'append' },
    { type: 'turn/start', data: { turn } },
    { type: 'step/start', data: { turn, step: 1 } },
  ];
  for (let chunk = 0; chunk < chunks; chunk++) {
    drafts.push({ type: 'assistant/chunk', data: { turn, step: 1, chunk: `c${chunk} ` } });
  }
  drafts.push(
    {
      type: 'assistant/message',
      data: { turn, step: 1, message: { role: 'assistant', content: `the answer to question ${turn}` } },
      surfaceOp: 'append',
    },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
  );
  return drafts;
}

/**
 * Writes a streamed-chunk session of about `events` events straight into the store (1,000 events per commit, not
 * measured), and its snapshot at its last turn end, as the hub's builder would have.
 */
export async function fillSession(store: EventStore, sessionId: string, events: number): Promise<number> {
  const chunks = Math.max(0, Math.floor(events / TURNS) - 6);
  const projector = new MessageProjector();
  let pending: ValidatedDraft[] = [];
  let next = 0;
  let epoch = '';
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const result = await store.commit({ sessionId, expectedSeq: next, events: pending });
    if (result.status !== 'committed') throw new Error(`join fill: commit ${result.status}`);
    epoch = result.epoch;
    projector.applyAll(result.events);
    next += pending.length;
    pending = [];
  };
  for (let turn = 1; turn <= TURNS; turn++) {
    for (const draft of turnDrafts(turn, chunks)) {
      pending.push(draft);
      if (pending.length >= COMMIT_EVENTS) await flush();
    }
  }
  await flush();
  const state = projector.exportState();
  const written = await store.snapshots.put(sessionId, { epoch, seq: state.length - 1, state });
  if (written !== 'written') throw new Error(`join fill: snapshot ${written}`);
  return next;
}

async function joinOnce(
  url: string,
  sessionId: string,
): Promise<{ ms: number; snapshotBytes: number; messagesBytes: number }> {
  const client = new HubClient({ url });
  try {
    const start = performance.now();
    const subscription = client.subscribe(sessionId, { from: 'snapshot' });
    await subscription.whenLive();
    const ms = performance.now() - start;
    const base = subscription.snapshot().base;
    return {
      ms,
      snapshotBytes: JSON.stringify(base ?? null).length + JSON.stringify(subscription.events).length,
      messagesBytes: JSON.stringify(subscription.messages).length,
    };
  } finally {
    client.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Scenario: joining a long session from the hub's snapshot. Two streamed-chunk sessions with the same final messages,
 * 1,000 events and 1,000,000 (100,000 with --quick); a new client subscribes with `from: 'snapshot'` to each, in
 * interleaved rounds, against an in-process hub on the bench Redis. Target: the long one joins within 1.5× the short.
 */
export async function runJoin(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: { sizes: JoinSizeResult[] } }> {
  const store = await RedisStore.open({ url: context.redisUrl });
  const hubStore = await RedisStore.open({ url: context.redisUrl });
  const hub = createHub({ store: hubStore, port: 0, logLevel: 'silent' });
  try {
    const { wsUrl } = await hub.listen();
    const sizes = context.quick ? SIZES.quick : SIZES.full;
    const sessions: { sessionId: string; events: number }[] = [];
    for (const size of sizes) {
      const sessionId = `bench-join-${size}-${Date.now()}`;
      const started = performance.now();
      const events = await fillSession(store, sessionId, size);
      log(`join: wrote ${events.toLocaleString('en-US')} events in ${Math.round(performance.now() - started)} ms`);
      sessions.push({ sessionId, events });
    }
    const runs = sessions.map(() => [] as { ms: number; snapshotBytes: number; messagesBytes: number }[]);
    for (let round = 0; round < (context.quick ? ROUNDS.quick : ROUNDS.full); round++) {
      for (const [index, session] of sessions.entries()) runs[index]!.push(await joinOnce(wsUrl, session.sessionId));
    }
    const results: JoinSizeResult[] = sessions.map((session, index) => ({
      events: session.events,
      joinMs: median(runs[index]!.map((run) => run.ms)),
      snapshotBytes: runs[index]![0]!.snapshotBytes,
      messagesBytes: runs[index]![0]!.messagesBytes,
    }));
    for (const result of results) {
      log(`join ${result.events.toLocaleString('en-US')} events: ${result.joinMs.toFixed(1)} ms (median)`);
    }
    return { rows: joinRows(results), raw: { sizes: results } };
  } finally {
    await hub.close();
    await hubStore.close();
    await store.close();
  }
}

/** Table rows of the join scenario (pure): the long session's join against the short one's. */
export function joinRows(results: readonly JoinSizeResult[]): Row[] {
  const short = results[0];
  const long = results.at(-1);
  if (short === undefined || long === undefined) return [];
  const scenario = `join from snapshot, ${long.events.toLocaleString('en-US')} events`;
  return [
    {
      scenario,
      metric: 'time to live (median)',
      unit: 'ms',
      hub: long.joinMs,
      baselineName: `same messages, ${short.events.toLocaleString('en-US')} events`,
      baseline: short.joinMs,
      target: '≤ 1.5× baseline',
      met: atMost(long.joinMs, 1.5 * short.joinMs),
    },
    {
      scenario,
      metric: 'bytes joined (snapshot + tail, JSON)',
      unit: 'B',
      hub: long.snapshotBytes,
      baselineName: 'derived messages (JSON)',
      baseline: long.messagesBytes,
      target: '≤ 2× baseline',
      met: atMost(long.snapshotBytes, 2 * long.messagesBytes),
    },
  ];
}
