/**
 * The surface as an ordered set of seqs, with O(1) membership, order and head look-ups.
 *
 * Each surface node lives in a slot. Slots are allocated in append order and a replacement puts the new node in
 * the slot of the first node it removes, so slot order is surface order: comparing two nodes' positions is
 * comparing their slots, with no scan. Alive slots are doubly linked so a replacement walks only its range.
 *
 * Writes can be journaled (`begin` / `rollback` / `release`) so a batch can be tried and undone.
 */
export class SurfaceIndex {
  /** seq → slot + 1 (0: not on the surface). */
  #slotOfSeq = new Int32Array(1024);
  /** slot → seq (-1: slot no longer alive). */
  #seqAtSlot = new Int32Array(1024);
  /** slot → next alive slot + 1 (0: none). */
  #next = new Int32Array(1024);
  /** slot → previous alive slot + 1 (0: none). */
  #prev = new Int32Array(1024);
  #slotCount = 0;
  #head = -1;
  #tail = -1;
  #size = 0;
  /** Journal of array writes: triples (array id, index, old value); null when not journaling. */
  #journal: number[] | null = null;
  #saved: readonly [number, number, number, number] = [0, -1, -1, 0];

  /** Number of nodes on the surface. */
  get size(): number {
    return this.#size;
  }

  /** Slot of `seq`, or -1 when `seq` is not on the surface. */
  slotOf(seq: number): number {
    return seq >= 0 && seq < this.#slotOfSeq.length ? this.#slotOfSeq[seq]! - 1 : -1;
  }

  /** Seq of the first surface node, -1 when the surface is empty. */
  get headSeq(): number {
    return this.#head < 0 ? -1 : this.#seqAtSlot[this.#head]!;
  }

  /** Slot of the first surface node, -1 when the surface is empty. */
  get headSlot(): number {
    return this.#head;
  }

  /** Slot after `slot` in surface order, -1 at the end. */
  nextSlot(slot: number): number {
    return this.#next[slot]! - 1;
  }

  seqAt(slot: number): number {
    return this.#seqAtSlot[slot]!;
  }

  /** Bytes held by the index's arrays. */
  get byteLength(): number {
    return this.#slotOfSeq.byteLength + this.#seqAtSlot.byteLength + this.#next.byteLength + this.#prev.byteLength;
  }

  /** Number of slots ever allocated (slot indices are below this). */
  get slotCount(): number {
    return this.#slotCount;
  }

  /**
   * Sizes the arrays for seqs up to `maxSeq` and `slots` slots at once (a restored projector: one allocation each
   * instead of growing step by step through a long log's seqs).
   */
  reserve(maxSeq: number, slots: number): void {
    this.#ensureSeq(maxSeq);
    this.#ensureSlots(slots);
  }

  /** Pushes `seq` at the end of the surface; returns its slot. */
  append(seq: number): number {
    const slot = this.#slotCount;
    this.#ensureSlots(slot + 1);
    this.#ensureSeq(seq);
    this.#slotCount = slot + 1;
    this.#write(1, slot, seq);
    this.#write(0, seq, slot + 1);
    this.#write(2, slot, 0);
    this.#write(3, slot, this.#tail + 1);
    if (this.#tail >= 0) this.#write(2, this.#tail, slot + 1);
    else this.#head = slot;
    this.#tail = slot;
    this.#size++;
    return slot;
  }

  /**
   * Replaces the nodes from `startSlot` through `endSlot` (in surface order, `startSlot <= endSlot`, both alive)
   * with `seq`, which takes `startSlot`. `onRemoved` sees every removed node (slot, seq) in order, before the
   * change. Returns the slot of the new node (= `startSlot`).
   */
  replace(startSlot: number, endSlot: number, seq: number, onRemoved?: (slot: number, seq: number) => void): number {
    this.#ensureSeq(seq);
    let removed = 0;
    for (let slot = startSlot; ; slot = this.#next[slot]! - 1) {
      const removedSeq = this.#seqAtSlot[slot]!;
      onRemoved?.(slot, removedSeq);
      this.#write(0, removedSeq, 0);
      if (slot !== startSlot) this.#write(1, slot, -1);
      removed++;
      if (slot === endSlot) break;
    }
    const after = this.#next[endSlot]!;
    this.#write(2, startSlot, after);
    if (after > 0) this.#write(3, after - 1, startSlot + 1);
    else this.#tail = startSlot;
    this.#write(1, startSlot, seq);
    this.#write(0, seq, startSlot + 1);
    this.#size -= removed - 1;
    return startSlot;
  }

  /** Starts journaling writes (nesting is not supported). */
  begin(): void {
    this.#journal = [];
    this.#saved = [this.#slotCount, this.#head, this.#tail, this.#size];
  }

  /** Undoes every write since `begin`. */
  rollback(): void {
    const journal = this.#journal;
    if (journal === null) return;
    for (let index = journal.length - 3; index >= 0; index -= 3) {
      this.#array(journal[index]!)[journal[index + 1]!] = journal[index + 2]!;
    }
    [this.#slotCount, this.#head, this.#tail, this.#size] = this.#saved;
    this.#journal = null;
  }

  /** Keeps every write since `begin`. */
  release(): void {
    this.#journal = null;
  }

  #array(id: number): Int32Array<ArrayBuffer> {
    return id === 0 ? this.#slotOfSeq : id === 1 ? this.#seqAtSlot : id === 2 ? this.#next : this.#prev;
  }

  #write(id: number, index: number, value: number): void {
    const array = this.#array(id);
    if (this.#journal !== null) this.#journal.push(id, index, array[index]!);
    array[index] = value;
  }

  #ensureSeq(seq: number): void {
    if (seq < this.#slotOfSeq.length) return;
    this.#slotOfSeq = grow(this.#slotOfSeq, seq + 1, 0);
  }

  #ensureSlots(count: number): void {
    if (count <= this.#seqAtSlot.length) return;
    this.#seqAtSlot = grow(this.#seqAtSlot, count, 0);
    this.#next = grow(this.#next, count, 0);
    this.#prev = grow(this.#prev, count, 0);
  }
}

function grow(array: Int32Array<ArrayBuffer>, minLength: number, fill: number): Int32Array<ArrayBuffer> {
  let length = array.length;
  while (length < minLength) length *= 2;
  const grown = new Int32Array(length);
  grown.set(array);
  if (fill !== 0) grown.fill(fill, array.length);
  return grown;
}
