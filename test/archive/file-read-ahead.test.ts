// The file archive reads ahead (server/archive/file/file-read.ts, server/archive/segment-read-ahead.ts): once a
// reader enters a segment, the next one is loaded and decoded before the reader asks for it, each segment once; a
// read-ahead that fails rejects nothing and the reader's own read of that segment reports the failure.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { FileArchive } from '../../server/archive/file/file-archive.ts';
import { sessionDirName } from '../../server/archive/file/file-names.ts';
import type { SegmentEntry } from '../../server/archive/file/index-codec.ts';
import { SessionFiles } from '../../server/archive/file/session-files.ts';
import { SEGMENT_MAX_EVENTS } from '../../server/archive/segment-codec.ts';
import { StoreDataError } from '../../server/store/event-store.ts';
import { hexes, run } from './archive-helpers.ts';

const EPOCH = '8a3e6c1d-2b7f-4e09-9d5a-1f4c7b2e6a30';
const PAGE = SEGMENT_MAX_EVENTS / 4;
const dirs: string[] = [];

/** The segment loads (file read and decode, not cache hits) of every `SessionFiles`, as `load <first seq>`. */
const log: string[] = [];
type ReadSegment = (entry: SegmentEntry, path: string) => Promise<unknown>;
const prototype = SessionFiles.prototype as unknown as { readSegment: ReadSegment };
const readSegment = prototype.readSegment;

beforeAll(() => {
  prototype.readSegment = function (this: SessionFiles, entry, path) {
    log.push(`load ${entry.firstSeq}`);
    return readSegment.call(this, entry, path);
  };
});
afterAll(() => {
  prototype.readSegment = readSegment;
});
afterEach(async () => {
  log.length = 0;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A directory holding session `id` archived as `segments` full segments (a smaller last one would be merged). */
async function archived(id: string, segments: number): Promise<{ dir: string; bodies: Uint8Array[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'sh-archive-ahead-'));
  dirs.push(dir);
  const writer = new FileArchive({ dir });
  await writer.open();
  const bodies: Uint8Array[] = [];
  try {
    for (let index = 0; index < segments; index++) {
      const segment = run(id, EPOCH, index * SEGMENT_MAX_EVENTS, SEGMENT_MAX_EVENTS);
      await writer.append(segment);
      bodies.push(...segment.bodies);
    }
  } finally {
    await writer.close();
  }
  log.length = 0;
  return { dir, bodies };
}

test('a reader entering a segment has the next one loaded before it reads there, each segment once', async () => {
  const { dir, bodies } = await archived('ahead', 3);
  const reader = new FileArchive({ dir });
  await reader.open();
  try {
    const read: Uint8Array[] = [];
    for (let seq = 0; seq < bodies.length; seq += PAGE) {
      log.push(`page ${seq}`);
      const page = await reader.read('ahead', seq, PAGE, 16 << 20);
      expect(page.firstSeq).toBe(seq);
      read.push(...page.bodies);
    }
    expect(hexes(read)).toEqual(hexes(bodies));
    const [second, third] = [SEGMENT_MAX_EVENTS, 2 * SEGMENT_MAX_EVENTS];
    expect(log.filter((line) => line.startsWith('load'))).toEqual(['load 0', `load ${second}`, `load ${third}`]);
    expect(log.indexOf(`load ${second}`)).toBeLessThan(log.indexOf(`page ${second}`));
    expect(log.indexOf(`load ${third}`)).toBeLessThan(log.indexOf(`page ${third}`));
  } finally {
    await reader.close();
  }
});

test('a read-ahead that fails rejects nothing; the read of that segment loads it again and reports it', async () => {
  const { dir, bodies } = await archived('damaged', 2);
  const sessionDir = join(dir, 'sessions', sessionDirName('damaged'));
  const index = JSON.parse((await readFile(join(sessionDir, 'index'))).subarray(40).toString('utf8')) as {
    segments: SegmentEntry[];
  };
  const second = index.segments[1]!;
  const file = join(sessionDir, second.name);
  const damaged = await readFile(file);
  damaged[damaged.byteLength - 1]! ^= 0xff;
  await writeFile(file, damaged);
  const reader = new FileArchive({ dir });
  await reader.open();
  try {
    const first = await reader.read('damaged', 0, SEGMENT_MAX_EVENTS, 16 << 20);
    expect(hexes(first.bodies)).toEqual(hexes(bodies.slice(0, SEGMENT_MAX_EVENTS)));
    await expect(reader.read('damaged', second.firstSeq, PAGE, 16 << 20)).rejects.toThrow(StoreDataError);
    expect(log).toEqual(['load 0', `load ${second.firstSeq}`, `load ${second.firstSeq}`]);
  } finally {
    await reader.close();
  }
});
