import type { JsonObject } from '../../shared/json.ts';
import { wellFormed } from './lossless.ts';

interface Pending {
  readonly key: string;
  /** The chunk's other fields (from the first delta of the run). */
  readonly head: JsonObject;
  /** The field the deltas are joined into. */
  readonly field: string;
  text: string;
}

/**
 * Joins a stream's tiny deltas into fewer `assistant/chunk`s: deltas with the same key (kind and block) that
 * arrive within `windowMs` of the first are written as one chunk; a different key, `maxChars` of text, `flush()`
 * or the window's end writes the pending chunk. Never reorders: a chunk is written before the next key starts.
 */
export class ChunkCoalescer {
  readonly #write: (chunk: JsonObject) => void;
  readonly #windowMs: number;
  readonly #maxChars: number;
  #pending: Pending | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(write: (chunk: JsonObject) => void, windowMs: number, maxChars: number) {
    this.#write = write;
    this.#windowMs = windowMs;
    this.#maxChars = maxChars;
  }

  /** Adds `delta` to the chunk of `key` (`head` and `field` shape the chunk when this delta starts one). */
  add(key: string, head: JsonObject, field: string, delta: string): void {
    if (this.#pending !== undefined && this.#pending.key !== key) this.flush();
    const pending = (this.#pending ??= { key, head, field, text: '' });
    pending.text += delta;
    if (this.#windowMs <= 0 || pending.text.length >= this.#maxChars) this.#cut();
    else this.#timer ??= setTimeout(() => this.#cut(), this.#windowMs);
  }

  /** Writes the pending chunk now (if any): at the end of a stream, or before another kind of chunk. */
  flush(): void {
    this.#cut(false);
  }

  /**
   * Writes the pending chunk. Mid-run (`carry`), a trailing high surrogate stays pending for the next delta of
   * the same key: a chunk never ends inside a surrogate pair (a lone surrogate is not lossless JSON).
   */
  #cut(carry = true): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    const last = pending.text.charCodeAt(pending.text.length - 1);
    const split = carry && last >= 0xd800 && last <= 0xdbff;
    const text = split ? pending.text.slice(0, -1) : pending.text;
    if (split) this.#pending = { ...pending, text: pending.text.slice(-1) };
    if (text !== '' || !split) this.#write({ ...pending.head, [pending.field]: wellFormed(text) });
  }
}
