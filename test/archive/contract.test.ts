// The one contract suite of the ArchiveBackend seam (server/archive/archive-backend.ts), run against every backend:
// the file backend in a temporary directory, PostgreSQL in a database of its own (created and dropped here).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ArchiveConflictError,
  type ArchiveBackend,
  type ArchivedSession,
} from '../../server/archive/archive-backend.ts';
import { StoreDataError, StoreRequestError } from '../../server/store/event-store.ts';
import { chunkBody, hexes, readAll, run } from './archive-helpers.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';

describe.each(harnessChoices())('archive contract: $name', ({ open }) => {
  let harness: ArchiveHarness;
  let backend: ArchiveBackend;
  const epoch = randomUUID();
  let n = 0;
  const newId = (stem = 'acme/run'): string => `${stem}-${++n}`;

  beforeAll(async () => {
    harness = await open();
    backend = harness.backend;
  });
  afterAll(async () => {
    await harness.close();
  });

  test('appends and reads back the same bytes, times and epoch', async () => {
    const id = newId();
    const first = run(id, epoch, 0, 10);
    await backend.append(first);
    const second = run(id, epoch, 10, 5);
    await backend.append(second);
    const all = await readAll(backend, id, 3);
    expect(all.epoch).toBe(epoch);
    expect(hexes(all.bodies)).toEqual(hexes([...first.bodies, ...second.bodies]));
    expect(all.times).toEqual([...first.times, ...second.times]);
    const described = await backend.describe(id);
    const bytes = [...first.bodies, ...second.bodies].reduce((sum, body) => sum + body.byteLength, 0);
    expect(described).toEqual<ArchivedSession>({
      sessionId: id,
      epoch,
      startSeq: 0,
      nextSeq: 15,
      bytes,
      firstTime: first.times[0]!,
      lastTime: second.times.at(-1)!,
    });
  });

  test('a session with nothing archived: describe undefined, empty page without epoch', async () => {
    const id = newId();
    expect(await backend.describe(id)).toBeUndefined();
    expect(await backend.read(id, 0, 10, 1000)).toEqual({ epoch: undefined, firstSeq: 0, bodies: [], times: [] });
  });

  test('a fork starts at its own first seq; reads outside the archived seqs are empty pages in its epoch', async () => {
    const id = newId();
    await backend.append(run(id, epoch, 40, 3));
    expect((await backend.describe(id))?.startSeq).toBe(40);
    for (const from of [0, 39, 43, 1000]) {
      const page = await backend.read(id, from, 10, 1000);
      expect(page).toEqual({ epoch, firstSeq: from, bodies: [], times: [] });
    }
    expect((await backend.read(id, 41, 10, 10_000)).bodies).toHaveLength(2);
  });

  test('a retried run is idempotent; a retry that overlaps identically writes only its new part', async () => {
    const id = newId();
    const segment = run(id, epoch, 0, 20);
    await backend.append(segment);
    await backend.append(segment);
    await backend.append(run(id, epoch, 5, 10));
    expect((await backend.describe(id))?.nextSeq).toBe(20);
    const longer = run(id, epoch, 10, 30);
    await backend.append(longer);
    const all = await readAll(backend, id);
    expect(hexes(all.bodies)).toEqual(hexes([...segment.bodies, ...longer.bodies.slice(10)]));
    expect((await backend.describe(id))?.nextSeq).toBe(40);
  });

  test('another epoch, a gap, a start before the archive or different overlapping content conflict, writing nothing', async () => {
    const id = newId();
    await backend.append(run(id, epoch, 10, 10));
    const before = await backend.describe(id);
    const attempts = [
      run(id, randomUUID(), 20, 5),
      run(id, epoch, 21, 5),
      run(id, epoch, 5, 10),
      run(id, epoch, 15, 10, { tag: 'other' }),
      run(id, epoch, 19, 2, { time0: 5 }),
    ];
    for (const attempt of attempts) {
      await expect(backend.append(attempt)).rejects.toBeInstanceOf(ArchiveConflictError);
      await expect(backend.append(attempt)).rejects.toMatchObject({ code: 'ARCHIVE_CONFLICT' });
    }
    expect(await backend.describe(id)).toEqual(before);
    expect(hexes((await readAll(backend, id)).bodies)).toEqual(hexes(run(id, epoch, 10, 10).bodies));
  });

  test('pages honour limit and maxBytes, with at least one event, across segments', async () => {
    const id = newId();
    const big = run(id, epoch, 0, 9000, { pad: 100 });
    await backend.append(big);
    const page = await backend.read(id, 4000, 500, 64 * 1024 * 1024);
    expect(page.firstSeq).toBe(4000);
    expect(hexes(page.bodies)).toEqual(hexes(big.bodies.slice(4000, 4500)));
    expect(page.times).toEqual(big.times.slice(4000, 4500));
    const size = big.bodies[0]!.byteLength;
    const capped = await backend.read(id, 0, 100, size * 3 + 1);
    expect(capped.bodies).toHaveLength(3);
    const tiny = await backend.read(id, 8999, 100, 1);
    expect(tiny.bodies).toHaveLength(1);
    const spanning = await backend.read(id, 4090, 20, 64 * 1024 * 1024);
    expect(hexes(spanning.bodies)).toEqual(hexes(big.bodies.slice(4090, 4110)));
    expect(hexes((await readAll(backend, id, 777)).bodies)).toEqual(hexes(big.bodies));
  });

  test('many small appends read back as one run', async () => {
    const id = newId();
    const expected: Uint8Array[] = [];
    for (let seq = 0; seq < 60; seq += 3) {
      const part = run(id, epoch, seq, 3);
      await backend.append(part);
      expected.push(...part.bodies);
    }
    expect(hexes((await readAll(backend, id, 7)).bodies)).toEqual(hexes(expected));
  });

  test('lists in id order, paged, by prefix, whatever the ids hold', async () => {
    const tenant = `t${randomUUID().slice(0, 8)}/`;
    const ids = [
      `${tenant}b`,
      `${tenant}a/../../x`,
      `${tenant}a b`,
      `${tenant}é`,
      `${tenant}😀`,
      `${tenant}\uffef`,
      `${tenant}${'long/'.repeat(40)}`,
      `${tenant}a`,
    ];
    for (const id of ids) await backend.append(run(id, epoch, 0, 2));
    await backend.append(run(`${tenant.slice(0, -1)}-other`, epoch, 0, 1));
    const expected = [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await backend.list({ prefix: tenant, limit: 3, ...(after === undefined ? {} : { after }) });
      seen.push(...page.sessions.map((session) => session.sessionId));
      for (const session of page.sessions) expect(session.nextSeq).toBe(2);
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(seen).toEqual(expected);
    const all = await backend.list({ limit: 10_000 });
    expect(all.sessions.map((session) => session.sessionId)).toEqual(
      expect.arrayContaining([...ids, `${tenant.slice(0, -1)}-other`]),
    );
  });

  test('rewrite replaces bodies atomically and the old bytes are gone; a bad rewrite changes nothing', async () => {
    const id = newId();
    const original = run(id, epoch, 0, 5000, { tag: 'secret-token-7f3a' });
    await backend.append(original);
    const marker = Buffer.from('secret-token-7f3a 4500');
    expect(await harness.liveBytesContain(id, marker)).toBe(true);
    const redacted = new Map<number, Uint8Array>([
      [4500, chunkBody('[redacted]')],
      [10, chunkBody('[redacted 10]')],
    ]);
    await expect(backend.rewrite(id, epoch, new Map([...redacted, [5000, chunkBody('x')]]))).rejects.toBeInstanceOf(
      ArchiveConflictError,
    );
    await expect(backend.rewrite(id, randomUUID(), redacted)).rejects.toBeInstanceOf(ArchiveConflictError);
    expect(hexes((await readAll(backend, id)).bodies)).toEqual(hexes(original.bodies));
    await backend.rewrite(id, epoch, redacted);
    const after = await readAll(backend, id);
    const expected = original.bodies.map((body, seq) => redacted.get(seq) ?? body);
    expect(hexes(after.bodies)).toEqual(hexes(expected));
    expect(after.times).toEqual(original.times);
    expect(await harness.liveBytesContain(id, marker)).toBe(false);
    expect(await harness.liveBytesContain(id, Buffer.from('secret-token-7f3a 4501'))).toBe(true);
    const described = await backend.describe(id);
    expect(described?.bytes).toBe(expected.reduce((sum, body) => sum + body.byteLength, 0));
    const again = await harness.reopen();
    expect(hexes((await readAll(again, id)).bodies)).toEqual(hexes(expected));
    await again.close();
  });

  test('a rewrite with a next epoch moves the archive to it, with or without bodies; it grows on in it', async () => {
    const id = newId();
    const first = run(id, epoch, 0, 300, { tag: 'relabel' });
    await backend.append(first);
    const next = randomUUID();
    await backend.rewrite(id, epoch, new Map(), next);
    expect(await backend.describe(id)).toMatchObject({ epoch: next, startSeq: 0, nextSeq: 300 });
    const read = await backend.read(id, 0, 10, 1 << 20);
    expect(read.epoch).toBe(next);
    expect(hexes((await readAll(backend, id)).bodies)).toEqual(hexes(first.bodies));
    await expect(backend.append(run(id, epoch, 300, 10))).rejects.toBeInstanceOf(ArchiveConflictError);
    await backend.append(run(id, next, 300, 10, { tag: 'relabel' }));
    const third = randomUUID();
    await backend.rewrite(id, next, new Map([[5, chunkBody('[redacted 5]')]]), third);
    const after = await readAll(backend, id);
    expect(after.epoch).toBe(third);
    expect(after.bodies).toHaveLength(310);
    expect(Buffer.from(after.bodies[5]!).equals(chunkBody('[redacted 5]'))).toBe(true);
    await expect(backend.rewrite(id, next, new Map(), randomUUID())).rejects.toBeInstanceOf(ArchiveConflictError);
  });

  test('reads during rewrites see each event whole, old or new, never an error', async () => {
    const id = newId();
    const original = run(id, epoch, 0, 6000);
    await backend.append(original);
    const reader = await harness.reopen();
    const versions = [0, 1, 2, 3, 4, 5].map(
      (round) =>
        new Map([
          [100, chunkBody(`v${round}`)],
          [5000, chunkBody(`w${round}`)],
        ]),
    );
    const allowed = (seq: number): Set<string> =>
      new Set(
        [original.bodies[seq]!, ...versions.flatMap((version) => version.get(seq) ?? [])].map((body) =>
          Buffer.from(body).toString('hex'),
        ),
      );
    let writing = true;
    const rewrites = (async () => {
      for (const version of versions) await backend.rewrite(id, epoch, version);
      writing = false;
    })();
    let pages = 0;
    while (writing || pages < 4) {
      for (const from of [0, 4090]) {
        const page = await reader.read(id, from, 1000, 64 * 1024 * 1024);
        expect(page.bodies).toHaveLength(1000);
        for (const [at, body] of page.bodies.entries())
          expect(allowed(from + at).has(Buffer.from(body).toString('hex'))).toBe(true);
        pages++;
      }
    }
    await rewrites;
    await reader.close();
    expect(hexes((await readAll(backend, id)).bodies)).toEqual(
      hexes(original.bodies.map((body, seq) => versions[5]!.get(seq) ?? body)),
    );
  });

  test('delete removes the archive; a new epoch may follow', async () => {
    const id = newId();
    await backend.append(run(id, epoch, 0, 30));
    expect(await backend.delete(id)).toBe(true);
    expect(await backend.describe(id)).toBeUndefined();
    expect(await backend.read(id, 0, 10, 1000)).toEqual({ epoch: undefined, firstSeq: 0, bodies: [], times: [] });
    expect((await backend.list({ prefix: id, limit: 10 })).sessions).toEqual([]);
    expect(await backend.delete(id)).toBe(false);
    const next = randomUUID();
    await backend.append(run(id, next, 0, 3, { tag: 'new' }));
    expect(await backend.describe(id)).toMatchObject({ epoch: next, startSeq: 0, nextSeq: 3 });
  });

  test('a corrupted event is DATA_CORRUPTED on read, never returned as events', async () => {
    const id = newId();
    await backend.append(run(id, epoch, 0, 100));
    await harness.corrupt(id);
    const reader = await harness.reopen();
    const reading = reader.read(id, 0, 100, 64 * 1024 * 1024);
    await expect(reading).rejects.toBeInstanceOf(StoreDataError);
    await expect(reader.read(id, 0, 100, 64 * 1024 * 1024)).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
    await reader.close();
  });

  test('bad arguments are BAD_REQUEST and change nothing', async () => {
    const id = newId();
    const good = run(id, epoch, 0, 2);
    const bad = [
      { ...good, sessionId: '' },
      { ...good, sessionId: 'a{b}' },
      { ...good, epoch: '' },
      { ...good, firstSeq: -1 },
      { ...good, firstSeq: 1.5 },
      { ...good, bodies: [] },
      { ...good, times: [1] },
      { ...good, times: [1, -5] },
      { ...good, bodies: ['text', good.bodies[1]!] as unknown as Uint8Array[] },
    ];
    for (const segment of bad) await expect(backend.append(segment)).rejects.toBeInstanceOf(StoreRequestError);
    await expect(backend.read(id, -1, 10, 100)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(backend.read(id, 0, 0, 100)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(backend.read(id, 0, 10, 0)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(backend.list({ limit: 0 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(backend.rewrite(id, epoch, new Map())).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(backend.delete('')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await backend.describe(id)).toBeUndefined();
  });
});
