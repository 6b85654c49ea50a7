import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StoreDataError, type StoredPage } from '../../store/event-store.ts';
import { validateSessionId } from '../../store/session-id.ts';
import {
  ArchiveConflictError,
  ArchiveUnavailableError,
  type ArchiveBackend,
  type ArchivedSession,
  type ArchiveListOptions,
  type ArchiveListPage,
  type ArchiveSegment,
} from '../archive-backend.ts';
import { checkList, checkRead, checkRewrite, checkSegment, compareIds } from '../archive-checks.ts';
import { alreadyArchived } from '../append-plan.ts';
import { isMissing, randomTag, syncDir, unavailable, writeTempFile } from './durable-fs.ts';
import { isSessionDirName, sessionDirName, sessionIdOfDirName } from './file-names.ts';
import { describeIndex, encodeIndex, segmentAt, type SegmentEntry, type SessionIndex } from './index-codec.ts';
import { SegmentCache } from '../segment-cache.ts';
import { SegmentReadAhead } from '../segment-read-ahead.ts';
import { SEGMENT_MAX_BYTES, SEGMENT_MAX_EVENTS, splitRun } from '../segment-codec.ts';
import { SegmentMissingError, SessionFiles, type NewSegment, type StepHook } from './session-files.ts';
import { readFileIndexPage } from './file-read.ts';

export type { FileArchiveStep } from './session-files.ts';

/** The version of the directory layout and file formats this code writes (`<dir>/FORMAT`). */
export const FILE_ARCHIVE_FORMAT = 1;
const FORMAT_FILE = 'FORMAT';

export interface FileArchiveOptions {
  /** The archive's root directory (created by `open`). */
  readonly dir: string;
  /** Bytes of decoded segments kept in memory for reads (default 32 MiB). */
  readonly cacheBytes?: number;
  /** Called at each step of a write, for fault-injection tests (it may kill the process). */
  readonly onStep?: StepHook;
}

/**
 * The `file:<dir>` archive: per session a directory of compressed, checksummed segment files and one checksummed
 * index, the commit point, replaced by an atomic rename (docs/storage.md#the-archive). One writer per session: this
 * instance serialises its own calls per session; across processes the archiver's lease does.
 */
export class FileArchive implements ArchiveBackend {
  readonly kind = 'file' as const;
  readonly dir: string;
  private readonly sessionsDir: string;
  private readonly trashDir: string;
  private readonly cache: SegmentCache;
  private readonly ahead = new SegmentReadAhead();
  private readonly step: StepHook;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(options: FileArchiveOptions) {
    this.dir = resolve(options.dir);
    this.sessionsDir = join(this.dir, 'sessions');
    this.trashDir = join(this.dir, 'trash');
    this.cache = new SegmentCache(options.cacheBytes ?? 32 * 1024 * 1024);
    this.step = options.onStep ?? (() => undefined);
  }

  async open(): Promise<void> {
    try {
      await mkdir(this.sessionsDir, { recursive: true });
      await mkdir(this.trashDir, { recursive: true });
      await this.checkFormat();
      await syncDir(this.dir);
      // What a delete moved to the trash before a crash.
      for (const name of await readdir(this.trashDir))
        await rm(join(this.trashDir, name), { recursive: true, force: true });
    } catch (error) {
      if (error instanceof ArchiveUnavailableError) throw error;
      throw unavailable(`opening ${this.dir}`, error);
    }
  }

  private async checkFormat(): Promise<void> {
    let text: string | undefined;
    try {
      text = await readFile(join(this.dir, FORMAT_FILE), 'utf8');
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (text === undefined) {
      const temp = await writeTempFile(
        this.dir,
        FORMAT_FILE,
        Buffer.from(`session-hub archive ${FILE_ARCHIVE_FORMAT}\n`),
      );
      await rename(temp, join(this.dir, FORMAT_FILE));
      return;
    }
    const match = /^session-hub archive (\d+)\n$/.exec(text);
    if (match === null) throw new ArchiveUnavailableError(`file archive: ${this.dir} is not a session-hub archive`);
    const version = Number(match[1]);
    if (version > FILE_ARCHIVE_FORMAT) {
      throw new ArchiveUnavailableError(
        `file archive: ${this.dir} has format ${version}, newer than this version of session-hub knows (${FILE_ARCHIVE_FORMAT}); upgrade session-hub`,
      );
    }
  }

  private files(sessionId: string): SessionFiles {
    const dir = join(this.sessionsDir, sessionDirName(sessionId));
    return new SessionFiles(dir, sessionId, this.cache, this.step, this.ahead);
  }

  /** Runs `task` after every earlier call of this instance on the session has settled. */
  private async exclusive<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    const before = this.locks.get(sessionId) ?? Promise.resolve();
    const run = before.then(task, task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(sessionId, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(sessionId) === tail) this.locks.delete(sessionId);
    }
  }

  async append(segment: ArchiveSegment): Promise<void> {
    checkSegment(segment);
    const { sessionId } = segment;
    await this.exclusive(sessionId, async () => {
      try {
        const files = this.files(sessionId);
        const index = await files.loadIndex();
        const skip = await alreadyArchived(index, segment, async (from, count) =>
          index === undefined ? { bodies: [], times: [] } : files.readRange(index, from, count),
        );
        if (skip === segment.bodies.length) return;
        const added = {
          firstSeq: segment.firstSeq + skip,
          bodies: segment.bodies.slice(skip),
          times: segment.times.slice(skip),
        };
        await this.appendRun(files, index, added, segment.epoch);
      } catch (error) {
        throw writeFailure(`archiving ${JSON.stringify(sessionId)}`, error);
      }
    });
  }

  private async appendRun(
    files: SessionFiles,
    index: SessionIndex | undefined,
    added: { firstSeq: number; bodies: Uint8Array[]; times: number[] },
    epoch: string,
  ): Promise<void> {
    if (index === undefined) {
      await mkdir(files.dir, { recursive: true });
      await syncDir(this.sessionsDir);
    }
    await files.sweep(index);
    let kept = index?.segments ?? [];
    let run = added;
    const replaced: SegmentEntry[] = [];
    const last = kept.at(-1);
    // A small last segment is merged with the new run, so that small appends still make full segments.
    if (last !== undefined && last.count < SEGMENT_MAX_EVENTS / 2 && last.bytes < SEGMENT_MAX_BYTES / 2) {
      const events = await files.loadSegment(last);
      run = {
        firstSeq: last.firstSeq,
        bodies: [...events.bodies, ...added.bodies],
        times: [...events.times, ...added.times],
      };
      kept = kept.slice(0, -1);
      replaced.push(last);
    }
    const written = await files.encode(splitRun(run));
    let bytes = index?.bytes ?? 0;
    for (const body of added.bodies) bytes += body.byteLength;
    const next: SessionIndex = {
      sessionId: files.sessionId,
      epoch,
      startSeq: index?.startSeq ?? added.firstSeq,
      nextSeq: added.firstSeq + added.bodies.length,
      bytes,
      firstTime: index?.firstTime ?? added.times[0]!,
      lastTime: added.times.at(-1)!,
      segments: [...kept, ...written.map((segment) => segment.entry)],
    };
    await files.commit(written, encodeIndex(next));
    await files.removeSegments(replaced);
  }

  async describe(sessionId: string): Promise<ArchivedSession | undefined> {
    validateSessionId(sessionId);
    const index = await this.files(sessionId).loadIndex();
    return index === undefined ? undefined : describeIndex(index);
  }

  async read(sessionId: string, fromSeq: number, limit: number, maxBytes: number): Promise<StoredPage> {
    checkRead(sessionId, fromSeq, limit, maxBytes);
    const files = this.files(sessionId);
    let index = await files.loadIndex();
    // A segment that vanished under the read was replaced by a rewrite (or the session deleted) meanwhile: read the
    // new index again; the same index naming a missing segment is data loss.
    for (let attempt = 0; ; attempt++) {
      try {
        return await readFileIndexPage(files, index, fromSeq, limit, maxBytes);
      } catch (error) {
        if (!(error instanceof SegmentMissingError)) throw error;
        const again = await files.loadIndex();
        if (attempt >= 3 || sameSegments(index, again)) {
          throw new StoreDataError(`archive of ${JSON.stringify(sessionId)}: ${error.message}`);
        }
        index = again;
      }
    }
  }

  async list(options: ArchiveListOptions): Promise<ArchiveListPage> {
    checkList(options);
    const prefix = options.prefix ?? '';
    let names: string[];
    try {
      names = await readdir(this.sessionsDir);
    } catch (error) {
      throw unavailable(`listing ${this.sessionsDir}`, error);
    }
    const candidates: { id: string; index?: SessionIndex }[] = [];
    for (const name of names) {
      if (!isSessionDirName(name)) continue;
      let id = sessionIdOfDirName(name);
      let index: SessionIndex | undefined;
      if (id === undefined) {
        index = await this.hashedIndex(name);
        if (index === undefined) continue;
        id = index.sessionId;
      }
      if (!id.startsWith(prefix) || (options.after !== undefined && compareIds(id, options.after) <= 0)) continue;
      candidates.push(index === undefined ? { id } : { id, index });
    }
    candidates.sort((a, b) => compareIds(a.id, b.id));
    const sessions: ArchivedSession[] = [];
    for (const candidate of candidates) {
      if (sessions.length === options.limit) return { sessions, next: sessions.at(-1)!.sessionId };
      const index = candidate.index ?? (await this.files(candidate.id).loadIndex());
      if (index !== undefined) sessions.push(describeIndex(index));
    }
    return { sessions };
  }

  /** The index in a hashed (`h…`) directory, whose name does not spell the id. */
  private async hashedIndex(name: string): Promise<SessionIndex | undefined> {
    let file: Buffer;
    try {
      file = await readFile(join(this.sessionsDir, name, 'index'));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw unavailable(`reading ${name}/index`, error);
    }
    const id = peekSessionId(file);
    if (id === undefined || sessionDirName(id) !== name) {
      throw new StoreDataError(`archive directory ${name}: its index does not name its session`);
    }
    return this.files(id).loadIndex();
  }

  async rewrite(
    sessionId: string,
    epoch: string,
    bodies: ReadonlyMap<number, Uint8Array>,
    nextEpoch = epoch,
  ): Promise<void> {
    checkRewrite(sessionId, epoch, bodies, nextEpoch);
    await this.exclusive(sessionId, async () => {
      const files = this.files(sessionId);
      const index = await files.loadIndex();
      if (index === undefined || index.epoch !== epoch) {
        throw new ArchiveConflictError(`session ${JSON.stringify(sessionId)} has no archive in epoch ${epoch}`);
      }
      const bySegment = new Map<number, Map<number, Uint8Array>>();
      for (const [seq, body] of bodies) {
        if (seq < index.startSeq || seq >= index.nextSeq) {
          throw new ArchiveConflictError(`session ${JSON.stringify(sessionId)}: seq ${seq} is not archived`);
        }
        const at = segmentAt(index.segments, seq);
        const changes = bySegment.get(at) ?? new Map<number, Uint8Array>();
        changes.set(seq, body);
        bySegment.set(at, changes);
      }
      try {
        await this.rewriteSegments(files, { ...index, epoch: nextEpoch }, bySegment);
      } catch (error) {
        throw writeFailure(`rewriting ${JSON.stringify(sessionId)}`, error);
      }
    });
  }

  private async rewriteSegments(
    files: SessionFiles,
    index: SessionIndex,
    bySegment: ReadonlyMap<number, ReadonlyMap<number, Uint8Array>>,
  ): Promise<void> {
    await files.sweep(index);
    const segments: SegmentEntry[][] = index.segments.map((entry) => [entry]);
    const replaced: SegmentEntry[] = [];
    const written: NewSegment[] = [];
    let bytes = index.bytes;
    for (const [at, changes] of bySegment) {
      const entry = index.segments[at]!;
      const events = await files.loadSegment(entry);
      const newBodies = events.bodies.map((body, i) => changes.get(entry.firstSeq + i) ?? body);
      const rewritten = await files.encode(
        splitRun({ firstSeq: entry.firstSeq, bodies: newBodies, times: events.times }),
      );
      written.push(...rewritten);
      for (const part of rewritten) bytes += part.entry.bytes;
      bytes -= entry.bytes;
      segments[at] = rewritten.map((part) => part.entry);
      replaced.push(entry);
    }
    await files.commit(written, encodeIndex({ ...index, bytes, segments: segments.flat() }));
    await files.removeSegments(replaced);
  }

  async delete(sessionId: string): Promise<boolean> {
    validateSessionId(sessionId);
    return this.exclusive(sessionId, async () => {
      const files = this.files(sessionId);
      const had = (await files.loadIndex()) !== undefined;
      const trashed = join(this.trashDir, `${sessionDirName(sessionId)}.${randomTag()}`);
      try {
        await rename(files.dir, trashed);
      } catch (error) {
        if (isMissing(error)) return false;
        throw unavailable(`deleting ${JSON.stringify(sessionId)}`, error);
      }
      // A read-ahead that read a segment before the move must not cache it after the session's segments are forgotten.
      await this.ahead.drain(files.dir);
      this.cache.deleteUnder(files.dir);
      try {
        await syncDir(this.sessionsDir);
        await this.step('trash-moved');
        await rm(trashed, { recursive: true, force: true });
      } catch (error) {
        throw unavailable(`deleting ${JSON.stringify(sessionId)}`, error);
      }
      return had;
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.locks.values()]);
    await this.ahead.drainAll();
  }
}

/**
 * A failed write as the seam reports it: its own errors as they are, a segment missing under the session's one
 * writer as corrupted data, any file-system failure as `ArchiveUnavailableError`.
 */
function writeFailure(what: string, error: unknown): Error {
  if (error instanceof StoreDataError || error instanceof ArchiveConflictError) return error;
  if (error instanceof SegmentMissingError) return new StoreDataError(`file archive: ${what}: ${error.message}`);
  return unavailable(what, error);
}

function sameSegments(a: SessionIndex | undefined, b: SessionIndex | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.segments.length === b.segments.length && a.segments.every((entry, i) => entry.name === b.segments[i]!.name);
}

/** The `sessionId` field of an index file, unverified (to find which session a hashed directory holds). */
function peekSessionId(file: Buffer): string | undefined {
  try {
    const value: unknown = JSON.parse(file.subarray(40).toString('utf8'));
    if (typeof value === 'object' && value !== null && 'sessionId' in value && typeof value.sessionId === 'string') {
      return value.sessionId;
    }
  } catch {
    // not JSON: reported by the caller
  }
  return undefined;
}
