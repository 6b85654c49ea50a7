// The read-contract property on one archive backend, for each store engine (memory, and Redis on a redis-server of
// its own): random valid logs and random operations (appends, snapshot builds, archive runs, forks, redactions),
// then every reader — the store pages through the lineage and tiered layers from random seqs, a real hub's HTTP
// pages and export, the SDK from seq 0, from the snapshot and resumed, and a subscription kept open through the
// run — must end with the model's events and `deriveMessages` of the whole log (docs/testing.md, The read contract).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HubClient, type SubscriptionSnapshot } from '../../../client/index.ts';
import type { Subscription } from '../../../client/subscription.ts';
import type { EventStore } from '../../../server/store/event-store.ts';
import type { ArchiveHarness } from '../../archive/archive-harness.ts';
import { storeEngines, type Engine } from '../../helpers/engines.ts';
import { startHub, type TestHub } from '../../helpers/hub.ts';
import {
  ContractRun,
  contractRun,
  contractStores,
  propertyRuns,
  propertyScale,
  type ContractOp,
  type ContractStores,
} from './read-contract-ops.ts';
import type { LogCommand } from '../../shared/support/log-arbitrary.ts';
import { checkHubReads, checkLive, checkResume, checkStoreReads, keepCopy } from './read-contract-readers.ts';

/** How each run reads: the store pages' shape, the HTTP page size, where a kept copy is cut, which hub reads. */
const readShape = fc.record({
  from: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  limit: fc.integer({ min: 1, max: 40 }),
  maxBytes: fc.option(fc.integer({ min: 1, max: 4000 }), { nil: undefined }),
  httpLimit: fc.integer({ min: 1, max: 30 }),
  keep: fc.double({ min: 0, max: 1, noNaN: true }),
  readerHub: fc.nat(1),
});

type ContractRunValue = typeof contractRun extends fc.Arbitrary<infer T> ? T : never;
type ReadShape = typeof readShape extends fc.Arbitrary<infer T> ? T : never;

/** A fork of the root at `at`, a step, then a redaction of the root's seq 0: the runs below. */
function forkThenRedact(start: LogCommand, fork: ContractOp, step: ContractRunValue['ops'][number], readerHub: number) {
  const redact: ContractOp = { kind: 'redact', target: 0, picks: [0], cold: undefined, via: 'store' };
  const run: ContractRunValue = { start: [start], ops: [fork, step, redact] };
  const shape: ReadShape = { from: 0, limit: 1, maxBytes: undefined, httpLimit: 1, keep: 0, readerHub };
  return [run, shape] satisfies [ContractRunValue, ReadShape];
}

/** Runs the property failed once (each with the bug it found), run first every time. */
const regressions: [ContractRunValue, ReadShape][] = [
  // A fork's own snapshot kept serving its parent's prefix after a redaction of the parent (seed -228954853).
  forkThenRedact(
    { kind: 'systemChange', content: '' },
    { kind: 'fork', target: 0, at: 0, via: 'store' },
    { kind: 'snapshot', target: 0.5 },
    0,
  ),
  // A fork's copy kept, then its parent's prefix redacted: the resumed copy keeps its bodies (see checkResume).
  forkThenRedact(
    { kind: 'user', content: 'hello' },
    { kind: 'fork', target: 0, at: 0.99, via: 'hub' },
    { kind: 'check', keep: 0.99 },
    1,
  ),
];

/** The current epochs of a session's ancestors (a redaction of one changes it), as one string. */
async function ancestorEpochs(store: EventStore, run: ContractRun, id: string): Promise<string> {
  const epochs: string[] = [];
  for (let parent = run.model.get(id).parent; parent !== undefined; parent = run.model.get(parent.id).parent) {
    epochs.push((await store.head(parent.id)).epoch);
  }
  return epochs.join(' ');
}

interface EngineWorld {
  readonly engine: Engine;
  readonly stores: ContractStores;
  /** Two hub nodes on the engine and the archive: snapshots on (the default policy), and off. */
  readonly hubs: readonly TestHub[];
  readonly clients: readonly HubClient[];
  /** The second node's store. */
  readonly second: EventStore;
}

async function openWorld(engine: Engine, harness: ArchiveHarness): Promise<EngineWorld> {
  const stores = contractStores(engine.store, harness.backend);
  // The second node has a store of its own on the same backend, as another process would.
  const second = (await engine.another?.()) ?? engine.store;
  const archive = harness.backend;
  const hubs = [
    await startHub({ store: engine.store, archive }),
    await startHub({ store: second, archive, snapshots: { enabled: false } }),
  ];
  const clients = hubs.map((hub) => new HubClient({ url: hub.wsUrl }));
  return { engine, stores, hubs, clients, second };
}

async function closeWorld(world: EngineWorld): Promise<void> {
  for (const client of world.clients) client.close();
  await Promise.all(world.hubs.map((hub) => hub.close()));
  await world.stores.close();
  if (world.second !== world.engine.store) await world.second.close();
  await world.engine.store.close();
  await world.engine.stop();
}

/** Declares the property for each engine over the archive `openHarness` opens, with `runs` runs (scaled by env). */
export function describeReadContract(archiveName: string, openHarness: () => Promise<ArchiveHarness>, runs: number) {
  describe.each(storeEngines('rc:'))(`the read contract, $name engine, ${archiveName} archive`, ({ open }) => {
    let harness: ArchiveHarness;
    let world: EngineWorld;
    beforeAll(async () => {
      harness = await openHarness();
      world = await openWorld(await open(), harness);
    });
    afterAll(async () => {
      await closeWorld(world);
      await harness.close();
    });

    it(
      'every reader ends with the model log and deriveMessages of it, whatever the operations',
      async () => {
        let count = 0;
        await fc.assert(
          fc.asyncProperty(contractRun, readShape, async ({ start, ops }, shape) => {
            const root = `rc-${count++}-${randomUUID().slice(0, 8)}`;
            const run = new ContractRun(world.stores, root, world.hubs[1 - shape.readerHub]!.url);
            await run.append(root, [{ kind: 'user', content: 'start' }, ...start]);
            const writer = world.clients[1 - shape.readerHub]!;
            const readers = { hub: world.hubs[shape.readerHub]!, client: world.clients[shape.readerHub]! };
            const ancestors = (id: string): Promise<string> => ancestorEpochs(world.stores.store, run, id);
            /** A subscription per session kept open from its start (the writer node's), with its ancestors' epochs. */
            const lives = new Map<string, { subscription: Subscription; ancestors: string }>();
            const follow = async (): Promise<void> => {
              for (const id of run.ids.filter((id) => !lives.has(id))) {
                lives.set(id, { subscription: writer.subscribe(id), ancestors: await ancestors(id) });
              }
            };
            /** Copies kept mid-run, with the epochs of their session's ancestors then. */
            const kept = new Map<string, { copy: SubscriptionSnapshot; ancestors: string }>();
            try {
              await follow();
              for (const op of ops) {
                if (op.kind !== 'check') await run.apply(op);
                else {
                  // Mid-run: every session reads right through the store, and a copy of each is kept to resume.
                  await checkStoreReads(world.stores.store, run.model, run.ids, shape);
                  for (const id of run.ids) {
                    const copy = await keepCopy(readers.client, id, run.model.headSeq(id), op.keep);
                    kept.set(id, { copy, ancestors: await ancestors(id) });
                  }
                }
                await follow();
              }
              const references = await checkStoreReads(world.stores.store, run.model, run.ids, shape);
              for (const id of run.ids) {
                await checkHubReads(readers, id, references.get(id)!, { limit: shape.httpLimit, keep: shape.keep });
              }
              // Each session's subscription kept open through the run; a copy kept before later operations (other
              // epochs after a redaction, archived and trimmed seqs), resumed. An ancestor redacted since either was
              // made: the fork's own events only (docs/storage.md#forks, see checkResume).
              for (const [id, live] of lives) {
                const redacted = live.ancestors !== (await ancestors(id));
                await checkLive(live.subscription, id, references.get(id)!, redacted ? run.model.get(id).ownFirst : 0);
              }
              for (const [id, { copy, ancestors: then }] of kept) {
                await checkResume(readers.client, copy, references.get(id)!, then !== (await ancestors(id)));
              }
            } finally {
              for (const live of lives.values()) live.subscription.close();
            }
          }),
          { numRuns: propertyRuns(runs), examples: regressions },
        );
      },
      30_000 * Math.max(1, propertyScale()),
    );
  });
}
