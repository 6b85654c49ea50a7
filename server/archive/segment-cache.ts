import type { SegmentEvents } from './segment-codec.ts';

/**
 * The last decoded segments, least recently used evicted first, bounded in bytes. A key names one content for as
 * long as it is in use: a file path (segment files are never changed in place; a rewrite writes a new name), or a
 * row's session, first seq and checksum. What is cached was verified when it was read, so a catch-up paging
 * through a segment decompresses it once.
 */
export class SegmentCache {
  private readonly entries = new Map<string, { readonly events: SegmentEvents; readonly bytes: number }>();
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  get(path: string): SegmentEvents | undefined {
    const entry = this.entries.get(path);
    if (entry === undefined) return undefined;
    this.entries.delete(path);
    this.entries.set(path, entry);
    return entry.events;
  }

  /** Whether `path` is cached (without making it the most recently used). */
  has(path: string): boolean {
    return this.entries.has(path);
  }

  set(path: string, events: SegmentEvents): void {
    let bytes = events.bodies.length * 16;
    for (const body of events.bodies) bytes += body.byteLength;
    if (bytes > this.maxBytes) return;
    this.delete(path);
    this.entries.set(path, { events, bytes });
    this.total += bytes;
    for (const [key, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(key);
      this.total -= entry.bytes;
    }
  }

  delete(path: string): void {
    const entry = this.entries.get(path);
    if (entry === undefined) return;
    this.entries.delete(path);
    this.total -= entry.bytes;
  }

  /** Forgets every segment under `dir` (a deleted session). */
  deleteUnder(dir: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${dir}/`)) this.delete(key);
  }
}
