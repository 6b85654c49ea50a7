/**
 * A growable Fenwick (binary indexed) tree of small non-negative counts (0..255): append in amortized O(1),
 * point update and prefix sum in O(log n). Appends push each node's total into its parent right away, so a node
 * is complete once it is appended and the tree never needs a rebuild when it grows.
 */
export class GrowableFenwick {
  /** 1-based tree; capacity (length - 1) is a power of two. */
  #tree = new Int32Array(1025);
  /** The values themselves, 0-based. */
  #values = new Uint8Array(1024);
  #count = 0;

  /** Number of values. */
  get length(): number {
    return this.#count;
  }

  /** Appends a value at index `length`. */
  push(value: number): void {
    const node = ++this.#count;
    const parent = node + (node & -node);
    if (parent >= this.#tree.length) this.#grow(parent);
    const tree = this.#tree;
    this.#values[node - 1] = value;
    const total = tree[node]! + value;
    tree[node] = total;
    tree[parent]! += total;
  }

  /** The value at 0-based `index` (< length). */
  valueAt(index: number): number {
    return this.#values[index]!;
  }

  /** Sets the value at 0-based `index` (< length). */
  set(index: number, value: number): void {
    const delta = value - this.#values[index]!;
    if (delta === 0) return;
    this.#values[index] = value;
    const tree = this.#tree;
    const count = this.#count;
    let node = index + 1;
    while (node <= count) {
      tree[node]! += delta;
      node += node & -node;
    }
    // The first ancestor beyond the end already holds pushes from complete nodes: keep it in step.
    if (node < tree.length) tree[node]! += delta;
  }

  /** Sum of the values at 0-based indices below `end`. */
  prefixSum(end: number): number {
    const tree = this.#tree;
    let sum = 0;
    for (let node = end; node > 0; node -= node & -node) sum += tree[node]!;
    return sum;
  }

  #grow(minIndex: number): void {
    let capacity = this.#tree.length - 1;
    while (capacity < minIndex) capacity *= 2;
    const tree = new Int32Array(capacity + 1);
    tree.set(this.#tree);
    this.#tree = tree;
    const values = new Uint8Array(capacity);
    values.set(this.#values);
    this.#values = values;
  }
}
