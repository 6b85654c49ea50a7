import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreDataError } from '../../store/event-store.ts';
import { decodeIndex, segmentAt, type SegmentEntry, type SessionIndex } from './index-codec.ts';
import { decodeSegment, encodeSegment, splitRun, type SegmentEvents } from '../segment-codec.ts';
import type { SegmentCache } from './segment-cache.ts';
import { INDEX_FILE, segmentFileName } from './file-names.ts';
import { isMissing, randomTag, removeQuietly, unavailable, writeFileDurably } from './durable-fs.ts';

/** A segment file went missing under a reader: a concurrent rewrite or delete, or data loss (the caller tells which). */
export class SegmentMissingError extends Error {
  override readonly name = 'SegmentMissingError';
}

/** Where a writer is, for fault-injection tests (`FileArchiveOptions.onStep`). */
export type FileArchiveStep =
  | 'segment-temp-written'
  | 'segments-renamed'
  | 'segments-synced'
  | 'index-temp-written'
  | 'index-renamed'
  | 'committed'
  | 'trash-moved';

export type StepHook = (step: FileArchiveStep) => void | Promise<void>;

/** The files of one session's archive directory: reads and writes them, verified; knows nothing of locking. */
export class SessionFiles {
  constructor(
    readonly dir: string,
    readonly sessionId: string,
    private readonly cache: SegmentCache,
    private readonly step: StepHook,
  ) {}

  /** The verified index, or undefined when the session has none. I/O failures are `ArchiveUnavailableError`. */
  async loadIndex(): Promise<SessionIndex | undefined> {
    let file: Buffer;
    try {
      file = await readFile(join(this.dir, INDEX_FILE));
    } catch (error) {
      if (isMissing(error) || fsNotDir(error)) return undefined;
      throw unavailable(`reading the index of ${JSON.stringify(this.sessionId)}`, error);
    }
    return decodeIndex(file, this.sessionId);
  }

  /** A verified segment (from the cache when it was read before). */
  async loadSegment(entry: SegmentEntry): Promise<SegmentEvents> {
    const path = join(this.dir, entry.name);
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached;
    let file: Buffer;
    try {
      file = await readFile(path);
    } catch (error) {
      if (isMissing(error)) throw new SegmentMissingError(`segment ${entry.name} is missing`);
      throw unavailable(`reading segment ${entry.name}`, error);
    }
    const events = await decodeSegment(file, entry, `${entry.name} of session ${JSON.stringify(this.sessionId)}`);
    this.cache.set(path, events);
    return events;
  }

  /** Events `fromSeq .. fromSeq + count - 1` of `index` (all archived), in order. */
  async readRange(index: SessionIndex, fromSeq: number, count: number): Promise<SegmentEvents> {
    const bodies: Uint8Array[] = [];
    const times: number[] = [];
    let seq = fromSeq;
    for (let at = segmentAt(index.segments, fromSeq); bodies.length < count; at++) {
      const entry = index.segments[at];
      if (entry === undefined) throw new StoreDataError(`archive of ${JSON.stringify(this.sessionId)} ends early`);
      const events = await this.loadSegment(entry);
      for (let i = seq - entry.firstSeq; i < entry.count && bodies.length < count; i++, seq++) {
        bodies.push(events.bodies[i]!);
        times.push(events.times[i]!);
      }
    }
    return { firstSeq: fromSeq, bodies, times };
  }

  /**
   * Writes `run` as new segment files (≤ 4096 events, ≤ 1 MiB of bodies each), each to a temporary name, fsynced,
   * then renamed; returns their index entries. Nothing refers to them until the index does. On failure the files
   * written so far are removed.
   */
  async writeSegments(run: SegmentEvents): Promise<SegmentEntry[]> {
    const entries: SegmentEntry[] = [];
    try {
      for (const part of splitRun(run)) {
        const encoded = await encodeSegment(part);
        const name = segmentFileName(part.firstSeq, randomTag());
        await writeFileDurably(this.dir, name, encoded.file, () => this.stepAsync('segment-temp-written'));
        entries.push({
          name,
          firstSeq: part.firstSeq,
          count: part.bodies.length,
          bytes: encoded.bytes,
          sha256: encoded.sha256,
        });
      }
    } catch (error) {
      await this.removeSegments(entries);
      throw error;
    }
    await this.step('segments-renamed');
    return entries;
  }

  /** Removes segment files (replaced ones after a commit, or new ones after a failed write). */
  async removeSegments(entries: readonly SegmentEntry[]): Promise<void> {
    for (const entry of entries) {
      const path = join(this.dir, entry.name);
      this.cache.delete(path);
      await removeQuietly(path);
    }
  }

  /** Writes the index durably (temporary name, fsync, rename): the commit point. The caller fsyncs the directory. */
  async writeIndex(file: Buffer): Promise<void> {
    await writeFileDurably(this.dir, INDEX_FILE, file, () => this.stepAsync('index-temp-written'));
  }

  /**
   * Removes what a crashed writer left: temporary files and segment files the index does not name. Only the
   * session's one writer calls it, before it writes.
   */
  async sweep(index: SessionIndex | undefined): Promise<void> {
    const live = new Set(index?.segments.map((entry) => entry.name));
    live.add(INDEX_FILE);
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const name of names) if (!live.has(name)) await removeQuietly(join(this.dir, name));
  }

  private async stepAsync(step: FileArchiveStep): Promise<void> {
    await this.step(step);
  }
}

function fsNotDir(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOTDIR';
}
