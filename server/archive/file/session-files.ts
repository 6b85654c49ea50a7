import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreDataError } from '../../store/event-store.ts';
import { decodeIndex, segmentAt, type SegmentEntry, type SessionIndex } from './index-codec.ts';
import { decodeSegment, encodeSegment, type SegmentEvents } from '../segment-codec.ts';
import type { SegmentCache } from '../segment-cache.ts';
import type { SegmentReadAhead } from '../segment-read-ahead.ts';
import { INDEX_FILE, segmentFileName } from './file-names.ts';
import { isMissing, randomTag, removeQuietly, rename, syncDir, unavailable, writeTempFile } from './durable-fs.ts';

/** A segment file went missing under a reader: a concurrent rewrite or delete, or data loss (the caller tells which). */
export class SegmentMissingError extends Error {
  override readonly name = 'SegmentMissingError';
}

/** A segment file about to be written, and its index entry. */
export interface NewSegment {
  readonly entry: SegmentEntry;
  readonly file: Buffer;
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
    private readonly ahead: SegmentReadAhead,
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

  /** A verified segment (from the cache when it was read before, or read ahead: a read-ahead in flight is joined). */
  async loadSegment(entry: SegmentEntry): Promise<SegmentEvents> {
    const path = join(this.dir, entry.name);
    const inFlight = this.ahead.loading(this.dir, path);
    if (inFlight !== undefined) await inFlight;
    return this.cache.get(path) ?? this.readSegment(entry, path);
  }

  /**
   * Starts loading `entry` (the segment after the one a reader is in) into the cache in the background, unless it
   * is cached or the session has a read-ahead in flight. Never rejects: a failure is the next real read's to see.
   */
  readAhead(entry: SegmentEntry): void {
    const path = join(this.dir, entry.name);
    if (this.cache.has(path)) return;
    this.ahead.start(this.dir, path, () => this.readSegment(entry, path));
  }

  private async readSegment(entry: SegmentEntry, path: string): Promise<SegmentEvents> {
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

  /** Encodes runs as new segment files (compressed on the thread pool, in parallel), each with its index entry. */
  async encode(runs: readonly SegmentEvents[]): Promise<NewSegment[]> {
    return Promise.all(
      runs.map(async (part) => {
        const encoded = await encodeSegment(part);
        const entry: SegmentEntry = {
          name: segmentFileName(part.firstSeq, randomTag()),
          firstSeq: part.firstSeq,
          count: part.bodies.length,
          bytes: encoded.bytes,
          sha256: encoded.sha256,
        };
        return { entry, file: encoded.file };
      }),
    );
  }

  /**
   * Commits new segment files and the index that names them: every file is first written to a temporary name and
   * fsynced (all in parallel), then the segments are renamed to their names and the directory fsynced, then the
   * index is renamed over the old one (the commit point) and the directory fsynced again. A crash before the index
   * rename leaves the old index, naming none of the new files (the next write sweeps them); on failure before it,
   * everything written is removed and the error thrown.
   */
  async commit(segments: readonly NewSegment[], index: Buffer): Promise<void> {
    const temps: string[] = [];
    const renamed: SegmentEntry[] = [];
    try {
      const indexTemp = writeTempFile(this.dir, INDEX_FILE, index).then(async (temp) => {
        temps.push(temp);
        await this.step('index-temp-written');
        return temp;
      });
      const segmentTemps = segments.map(async (segment) => {
        const temp = await writeTempFile(this.dir, segment.entry.name, segment.file);
        temps.push(temp);
        await this.step('segment-temp-written');
        return temp;
      });
      const written = await Promise.allSettled([indexTemp, ...segmentTemps]);
      const failed = written.find((outcome) => outcome.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      for (const [at, segment] of segments.entries()) {
        await rename(await segmentTemps[at]!, join(this.dir, segment.entry.name));
        renamed.push(segment.entry);
      }
      await this.step('segments-renamed');
      await syncDir(this.dir);
      await this.step('segments-synced');
      await rename(await indexTemp, join(this.dir, INDEX_FILE));
    } catch (error) {
      for (const temp of temps) await removeQuietly(temp);
      await this.removeSegments(renamed);
      throw error;
    }
    await this.step('index-renamed');
    await syncDir(this.dir);
    await this.step('committed');
  }

  /** Removes segment files (replaced ones after a commit, or new ones after a failed write). */
  async removeSegments(entries: readonly SegmentEntry[]): Promise<void> {
    for (const entry of entries) {
      const path = join(this.dir, entry.name);
      this.cache.delete(path);
      await removeQuietly(path);
    }
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
}

function fsNotDir(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOTDIR';
}
