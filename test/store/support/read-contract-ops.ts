// The operations of the read-contract property (test/store/read-contract-*.test.ts), applied to the stores the hub
// composes (the lineage layer over the tiered store over an engine) and to the reference model together: append
// batches of random valid events, snapshot builds, archive runs (archive and trim), forks, redactions. Each asserts
// what its answer must be and updates the model from it.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { ArchiveBackend } from '../../../server/archive/archive-backend.ts';
import { archiveSession, type ArchiveStep } from '../../../server/archive/archive-run.ts';
import { TieredStore } from '../../../server/archive/tiered-store.ts';
import { resolveLimits } from '../../../server/limits/limits.ts';
import { storeReadLimits } from '../../../server/limits/store-reads.ts';
import { createLogger } from '../../../server/logger.ts';
import { HubMetrics } from '../../../server/metrics.ts';
import { SnapshotBuilder } from '../../../server/snapshot/snapshot-builder.ts';
import { resolveSnapshotPolicy } from '../../../server/snapshot/snapshot-policy.ts';
import type { EventStore } from '../../../server/store/event-store.ts';
import { LineageStore } from '../../../server/store/lineage/lineage-store.ts';
import type { SessionEvent } from '../../../shared/index.ts';
import { forkPoint, jsonEquals, redactEventData, REDACTION_AUDIT_TYPE, Session } from '../../../shared/index.ts';
import { buildLog, logCommand, type LogCommand } from '../../shared/support/log-arbitrary.ts';
import { draftOf, factsOf, LogModel } from './read-contract-model.ts';

/** The stores of one engine and one archive, composed as `createHub` composes them. */
export interface ContractStores {
  /** The hot store (the engine): what archive runs read and trim. */
  readonly engine: EventStore;
  readonly archive: ArchiveBackend;
  /** The lineage layer over the tiered store over the engine: what the hub reads and writes through. */
  readonly store: EventStore;
  /** Builds snapshots through `store`, as a hub node's builder does. */
  readonly builder: SnapshotBuilder;
  close(): Promise<void>;
}

export function contractStores(engine: EventStore, archive: ArchiveBackend): ContractStores {
  const store = LineageStore.over(new TieredStore(engine, archive));
  const builder = new SnapshotBuilder({
    store,
    policy: resolveSnapshotPolicy(),
    nodeName: 'prop',
    logger: createLogger('silent'),
    metrics: new HubMetrics('prop_'),
    reads: storeReadLimits(resolveLimits()),
  });
  return { engine, archive, store, builder, close: () => builder.close() };
}

const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

/** Who writes: the store the hub composes, or a hub node's HTTP API (which validates the lifecycle, and forks). */
export type Via = 'store' | 'hub';
const via = fc.constantFrom<Via>('store', 'hub');

/** A write during an archive run: an append, or a redaction of a hot seq (`pick`), at `step`. */
export interface ArchiveRace {
  readonly step: ArchiveStep;
  readonly write: 'append' | 'redact';
  readonly pick: number;
}

/** `target` picks a session of the run (the root and its forks, in the order they were made). */
export type ContractOp =
  | {
      readonly kind: 'append';
      readonly target: number;
      readonly commands: LogCommand[];
      readonly cuts: number[];
      readonly via: Via;
    }
  | { readonly kind: 'snapshot'; readonly target: number }
  | {
      readonly kind: 'archive';
      readonly target: number;
      readonly keep: number;
      readonly via: Via;
      /** A write that races the run (store runs only): at one of its steps, before the trim. */
      readonly race: ArchiveRace | undefined;
    }
  | { readonly kind: 'fork'; readonly target: number; readonly at: number; readonly via: Via }
  | {
      readonly kind: 'redact';
      readonly target: number;
      readonly via: Via;
      readonly picks: number[];
      readonly cold: number | undefined;
    };

export const contractOp: fc.Arbitrary<ContractOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      target: fraction,
      commands: fc.array(logCommand, { minLength: 1, maxLength: 12 }),
      cuts: fc.array(fraction, { maxLength: 3 }),
      via,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('snapshot' as const), target: fraction }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('archive' as const),
      target: fraction,
      keep: fc.nat(8),
      via,
      race: fc.option(
        fc.record({
          step: fc.constantFrom<ArchiveStep>('leased', 'planned', 'appended', 'verified'),
          write: fc.constantFrom('append' as const, 'redact' as const),
          pick: fraction,
        }),
        { nil: undefined, freq: 2 },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('fork' as const), target: fraction, at: fraction, via }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('redact' as const),
      target: fraction,
      via,
      picks: fc.array(fraction, { minLength: 1, maxLength: 3 }),
      cold: fc.option(fraction, { nil: undefined }),
    }),
  },
);

/** A pause in the run: every session read through the store, and a copy of the root kept (cut at `keep`). */
export interface CheckOp {
  readonly kind: 'check';
  readonly keep: number;
}
const checkOp: fc.Arbitrary<CheckOp> = fc.record({ kind: fc.constant('check' as const), keep: fraction });

/** A run: the root's first events, then operations. */
export const contractRun = fc.record({
  start: fc.array(logCommand, { minLength: 1, maxLength: 30 }),
  ops: fc.array(fc.oneof({ weight: 12, arbitrary: contractOp }, { weight: 1, arbitrary: checkOp }), {
    maxLength: 14,
  }),
});

/** `SESSION_HUB_PROPERTY_SCALE` (a bench, a soak): how many times the default runs a property makes; 1 unset. */
export function propertyScale(): number {
  const scale = Number(process.env['SESSION_HUB_PROPERTY_SCALE'] ?? '1');
  return Number.isFinite(scale) && scale > 0 ? scale : 1;
}

/** How many runs a property makes: `base`, times the scale. */
export function propertyRuns(base: number): number {
  return Math.max(1, Math.round(base * propertyScale()));
}

/** What a redaction answers, from the store or the hub (whose `auditSeq` is null when nothing was written). */
interface RedactionAnswer {
  readonly seqs: readonly number[];
  readonly unchanged: readonly number[];
  readonly cold: readonly number[];
  readonly auditSeq: number | null | undefined;
}

/** One run's sessions: the stores, the model and the ids in the order they were made. */
export class ContractRun {
  readonly model = new LogModel();
  readonly ids: string[] = [];
  readonly #stores: ContractStores;
  readonly #root: string;

  /** The HTTP base of the hub node that writes `via: 'hub'`. */
  readonly #hubUrl: string;
  /** Appends the hub refused for their lifecycle (the generator's drafts, not the hub's fault): committed directly. */
  lifecycleRefusals = 0;

  constructor(stores: ContractStores, root: string, hubUrl: string) {
    this.#stores = stores;
    this.#root = root;
    this.#hubUrl = hubUrl;
    this.ids.push(root);
    this.model.add({ id: root, ownFirst: 0, own: [] });
  }

  pick(target: number): string {
    return this.ids[Math.floor(target * this.ids.length)]!;
  }

  /** The model's log of a session as committed events (for `Session.fromLog`). */
  #sessionOf(id: string): Session {
    const events = this.model.log(id).map((event) => ({ ...factsOf(event), time: 1 }) as SessionEvent);
    return Session.fromLog(events, { clock: () => 1 });
  }

  async append(id: string, commands: readonly LogCommand[], cuts: readonly number[] = [], by: Via = 'store') {
    const session = this.#sessionOf(id);
    const before = session.length;
    buildLog(commands, session);
    const events = session.events.slice(before);
    const bounds = [...new Set(cuts.map((cut) => Math.floor(cut * events.length)))].sort((a, b) => a - b);
    let at = 0;
    for (const end of [...bounds, events.length]) {
      if (end <= at) continue;
      const batch = events.slice(at, end);
      if (by === 'store' || !(await this.#appendThroughHub(id, batch))) await this.#commit(id, batch);
      at = end;
    }
  }

  async #commit(id: string, batch: readonly SessionEvent[]): Promise<void> {
    const expectedSeq = this.model.headSeq(id) + 1;
    const result = await this.#stores.store.commit({ sessionId: id, expectedSeq, events: batch.map(draftOf) });
    if (result.status !== 'committed') throw new Error(`commit to ${id} at ${expectedSeq}: ${result.status}`);
    this.model.appendCommitted(id, result.events);
  }

  /** POSTs the batch to the hub; false when the hub refused it for its lifecycle (nothing written). */
  async #appendThroughHub(id: string, batch: readonly SessionEvent[]): Promise<boolean> {
    const expectedSeq = this.model.headSeq(id) + 1;
    const response = await fetch(`${this.#hubUrl}/v1/sessions/${encodeURIComponent(id)}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch.map(draftOf), expectedSeq }),
    });
    const body = (await response.json()) as { firstSeq?: number; error?: { code: string } };
    if (response.status === 400 && body.error?.code === 'LIFECYCLE_VIOLATION') {
      this.lifecycleRefusals++;
      return false;
    }
    expect(response.status, `append to ${id} through the hub: ${JSON.stringify(body)}`).toBe(201);
    expect(body.firstSeq).toBe(expectedSeq);
    this.model.appendCommitted(
      id,
      batch.map((event, index) => ({ ...event, seq: expectedSeq + index })),
    );
    return true;
  }

  async apply(op: ContractOp): Promise<void> {
    const id = this.pick(op.target);
    switch (op.kind) {
      case 'append':
        return this.append(id, op.commands, op.cuts, op.via);
      case 'snapshot':
        this.#stores.builder.request(id);
        return this.#stores.builder.idle();
      case 'archive':
        return this.#archive(id, op.keep, op.via, op.race);
      case 'fork':
        return this.#fork(id, op.at, op.via);
      case 'redact':
        return this.#redact(id, op.picks, op.cold, op.via);
    }
  }

  /**
   * An archive run: the run itself up to `head + 1 - keep`, or the hub's admin run (its own cut). A redaction racing
   * the run (asked at one of its steps, as another node would) waits for the session's archive lease, which the run
   * holds: it redacts once the run ended, in whichever tier then holds the seq.
   */
  async #archive(id: string, keep: number, by: Via, race: ArchiveRace | undefined): Promise<void> {
    const { engine, archive } = this.#stores;
    const before = this.model.headSeq(id) + 1 - keep;
    let raced = false;
    let redaction: Promise<void> | undefined;
    const onStep = async (step: ArchiveStep): Promise<void> => {
      if (race === undefined || raced || step !== race.step) return;
      raced = true;
      if (race.write === 'append') await this.append(id, [{ kind: 'user', content: 'raced' }]);
      else redaction = this.#redact(id, [race.pick], undefined, 'store');
    };
    const token = `prop-${randomUUID()}`;
    const run =
      by === 'hub'
        ? ((await this.#hubPost(`${id}/archive`, {}, 200)) as { status: string; cut?: number })
        : await archiveSession({ store: engine, archive, sessionId: id, token, before, onStep }).finally(
            () => redaction,
          );
    expect(['archived', 'idle'], `archive run of ${id}: ${JSON.stringify(run)}`).toContain(run.status);
    if (run.status === 'archived' && by === 'store') expect(run.cut).toBeLessThanOrEqual(Math.max(before, 0));
  }

  /** POSTs `body` to the writer hub's `/v1/sessions/<path>`; the reply's body, once its status is `status`. */
  async #hubPost(path: string, body: object, status: number): Promise<unknown> {
    const slash = path.lastIndexOf('/');
    const url = `${this.#hubUrl}/v1/sessions/${encodeURIComponent(path.slice(0, slash))}${path.slice(slash)}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reply = (await response.json()) as unknown;
    expect(response.status, `POST ${path}: ${JSON.stringify(reply)}`).toBe(status);
    return reply;
  }

  async #fork(parent: string, at: number, by: Via): Promise<void> {
    const headSeq = this.model.headSeq(parent);
    if (headSeq < 0) return;
    const atSeq = Math.floor(at * (headSeq + 1));
    const prefix = this.#sessionOf(parent).events.slice(0, atSeq + 1);
    const point = forkPoint(prefix);
    const child = Session.fromLog(prefix, { clock: () => 1 });
    if (point.kind === 'inside-turn') for (const draft of point.repair) child.append(draft);
    const childId = `${this.#root}/f${this.ids.length}`;
    const repair = child.events.slice(atSeq + 1);
    if (by === 'hub') {
      const body = await this.#hubPost(`${parent}/forks`, { atSeq, newId: childId, repair: true }, 201);
      expect(body).toMatchObject({ sessionId: childId, parent, forkSeq: atSeq, repaired: repair.length });
      this.#forked(childId, parent, atSeq, repair);
      return;
    }
    const { epoch } = await this.#stores.store.head(parent);
    const result = await this.#stores.store.forks.create({
      parentId: parent,
      parentEpoch: epoch,
      atSeq,
      childId,
      events: repair.map(draftOf),
    });
    if (result.status !== 'forked') throw new Error(`fork of ${parent} at ${atSeq}: ${JSON.stringify(result)}`);
    this.#forked(childId, parent, atSeq, result.events);
  }

  #forked(childId: string, parent: string, atSeq: number, events: readonly SessionEvent[]): void {
    this.ids.push(childId);
    this.model.add({ id: childId, parent: { id: parent, forkSeq: atSeq }, ownFirst: atSeq + 1, own: [] });
    this.model.appendCommitted(childId, events);
  }

  async #redactInStore(id: string, seqs: number[]): Promise<RedactionAnswer> {
    const result = await this.#stores.store.redactions.redact({ sessionId: id, seqs, reason: 'property', by: 'prop' });
    if (result.status !== 'redacted') throw new Error(`redaction of ${id}: ${JSON.stringify(result)}`);
    return result;
  }

  async #redactThroughHub(id: string, seqs: number[]): Promise<RedactionAnswer> {
    return (await this.#hubPost(`${id}/redactions`, { seqs, reason: 'property' }, 200)) as RedactionAnswer;
  }

  /** Redacts seqs the engine holds (and maybe one the archive holds only): the model follows the answer. */
  async #redact(id: string, picks: readonly number[], coldPick: number | undefined, by: Via): Promise<void> {
    const { model } = this;
    const headSeq = model.headSeq(id);
    const ownFirst = model.get(id).ownFirst;
    const hotFirst = Math.max(ownFirst, (await this.#stores.engine.head(id)).firstSeq ?? 0);
    if (headSeq < hotFirst) return;
    const hot = picks.map((pick) => hotFirst + Math.floor(pick * (headSeq + 1 - hotFirst)));
    const cold =
      coldPick !== undefined && hotFirst > ownFirst ? [ownFirst + Math.floor(coldPick * (hotFirst - ownFirst))] : [];
    const seqs = [...hot, ...cold];
    const result = by === 'hub' ? await this.#redactThroughHub(id, seqs) : await this.#redactInStore(id, seqs);
    const answered = [...result.seqs, ...result.unchanged];
    for (const seq of hot) expect(answered, `hot seq ${seq} of ${id}`).toContain(seq);
    for (const seq of cold) expect([...answered, ...result.cold], `cold seq ${seq} of ${id}`).toContain(seq);
    for (const seq of result.cold) expect(cold).toContain(seq);
    for (const seq of result.unchanged) {
      const event = model.own(id, seq);
      const placeholder = redactEventData(event.type, event.data);
      const held = [event.data, event.alt].some((data) => data !== undefined && jsonEquals(data, placeholder));
      expect(held, `${id} seq ${seq} reported unchanged`).toBe(true);
    }
    for (const seq of answered) model.redacted(id, seq);
    for (const seq of result.cold) model.maybeRedacted(id, seq);
    if (result.auditSeq === undefined || result.auditSeq === null) {
      expect(result.seqs).toEqual([]);
      return;
    }
    expect(result.auditSeq).toBe(headSeq + 1);
    const [audit] = await this.#stores.store.read(id, result.auditSeq, 1);
    expect(audit).toMatchObject({ seq: result.auditSeq, type: REDACTION_AUDIT_TYPE, data: { seqs: result.seqs } });
    model.appendCommitted(id, [audit!]);
  }
}
