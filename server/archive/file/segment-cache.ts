import type { SegmentEvents } from '../segment-codec.ts';

/**
 * The last decoded segments, by path, least recently used evicted first, bounded in bytes. Segment files are never
 * changed in place (a rewrite writes a file under a new name), so a path names one content for as long as it
 * exists; what is cached was verified when it was read. A catch-up reading a segment page by page decompresses it
 * once.
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
