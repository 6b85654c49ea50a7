/**
 * A V8 heap snapshot (`.heapsnapshot`, as written by `v8.writeHeapSnapshot`) read into flat arrays, with the
 * dominator tree computed, so that two snapshots of one process (before and after N idle connections) can be
 * compared per connection: self bytes by kind of object, and the same bytes by *owner* (the nearest object of a
 * chosen class that dominates them, i.e. whose release would free them).
 */
import { readFileSync } from 'node:fs';

interface RawSnapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: readonly string[];
      readonly node_types: readonly [readonly string[], ...unknown[]];
      readonly edge_fields: readonly string[];
      readonly edge_types: readonly [readonly string[], ...unknown[]];
    };
  };
  readonly nodes: readonly number[];
  readonly edges: readonly number[];
  readonly strings: readonly string[];
}

/** One group of objects: how many and their self bytes. */
export interface HeapGroup {
  readonly count: number;
  readonly bytes: number;
}

/** A parsed heap snapshot: per node its group label, self size and dominator. */
export class HeapSnapshot {
  readonly nodeCount: number;
  /** Group label of each node (see `groupOf`). */
  readonly labels: readonly string[];
  readonly selfSize: Float64Array;
  /** Immediate dominator of each node reachable from the root (the root dominates itself); -1 when unreachable. */
  readonly idom: Int32Array;
  /** Reachable nodes in reverse post-order of a depth-first walk from the root (dominators before what they hold). */
  readonly order: Int32Array;

  private constructor(raw: RawSnapshot) {
    const { meta } = raw.snapshot;
    const nodeFieldCount = meta.node_fields.length;
    const edgeFieldCount = meta.edge_fields.length;
    const typeField = meta.node_fields.indexOf('type');
    const nameField = meta.node_fields.indexOf('name');
    const sizeField = meta.node_fields.indexOf('self_size');
    const edgeCountField = meta.node_fields.indexOf('edge_count');
    const edgeTypeField = meta.edge_fields.indexOf('type');
    const edgeToField = meta.edge_fields.indexOf('to_node');
    const nodeTypes = meta.node_types[0];
    const weakEdge = meta.edge_types[0].indexOf('weak');
    const { nodes, edges, strings } = raw;
    const count = nodes.length / nodeFieldCount;
    this.nodeCount = count;
    this.selfSize = new Float64Array(count);
    const labels: string[] = new Array<string>(count);
    // Outgoing edges (strong only) as a CSR: firstEdge[n]..firstEdge[n + 1] in `targets`.
    const firstEdge = new Int32Array(count + 1);
    const targets: number[] = [];
    let edgeIndex = 0;
    for (let node = 0; node < count; node++) {
      const base = node * nodeFieldCount;
      const type = nodeTypes[nodes[base + typeField]!] ?? 'unknown';
      labels[node] = groupOf(type, strings[nodes[base + nameField]!] ?? '');
      this.selfSize[node] = nodes[base + sizeField]!;
      firstEdge[node] = targets.length;
      const edgeCount = nodes[base + edgeCountField]!;
      for (let edge = 0; edge < edgeCount; edge++, edgeIndex += edgeFieldCount) {
        if (edges[edgeIndex + edgeTypeField] === weakEdge) continue;
        targets.push(edges[edgeIndex + edgeToField]! / nodeFieldCount);
      }
    }
    firstEdge[count] = targets.length;
    this.labels = labels;
    const { order, idom } = dominators(count, firstEdge, Int32Array.from(targets));
    this.order = order;
    this.idom = idom;
  }

  static read(file: string): HeapSnapshot {
    return HeapSnapshot.parse(readFileSync(file, 'utf8'));
  }

  static parse(json: string): HeapSnapshot {
    return new HeapSnapshot(JSON.parse(json) as RawSnapshot);
  }

  /** Count and self bytes of every group of reachable objects. */
  groups(): Map<string, HeapGroup> {
    const groups = new Map<string, HeapGroup>();
    for (const node of this.order) add(groups, this.labels[node]!, this.selfSize[node]!);
    return groups;
  }

  /**
   * Self bytes of reachable objects by owner: the label of the nearest dominator (the object itself included) whose
   * label `isOwner` accepts, else `(no owner)`. Each byte is counted once. With `detail`, by owner and kind
   * (`owner › kind`).
   */
  owners(isOwner: (label: string) => boolean, detail = false): Map<string, HeapGroup> {
    const owner = new Array<string>(this.nodeCount);
    const groups = new Map<string, HeapGroup>();
    for (const node of this.order) {
      const label = this.labels[node]!;
      const up = this.idom[node]!;
      owner[node] = isOwner(label) ? label : up === node ? '(no owner)' : owner[up]!;
      add(groups, detail ? `${owner[node]} › ${label}` : owner[node], this.selfSize[node]!);
    }
    return groups;
  }

  /** Retained bytes of every reachable node (its self size plus everything it dominates). */
  retainedSizes(): Float64Array {
    const retained = Float64Array.from(this.selfSize);
    for (let index = this.order.length - 1; index > 0; index--) {
      const node = this.order[index]!;
      retained[this.idom[node]!]! += retained[node]!;
    }
    return retained;
  }

  /** Count and average retained bytes of the objects of each label `wanted` accepts. */
  retainedBy(wanted: (label: string) => boolean): Map<string, HeapGroup> {
    const retained = this.retainedSizes();
    const groups = new Map<string, HeapGroup>();
    for (const node of this.order) {
      const label = this.labels[node]!;
      if (wanted(label)) add(groups, label, retained[node]!);
    }
    return groups;
  }
}

function add(groups: Map<string, HeapGroup>, label: string, bytes: number): void {
  const group = groups.get(label);
  groups.set(label, { count: (group?.count ?? 0) + 1, bytes: (group?.bytes ?? 0) + bytes });
}

/**
 * How objects are grouped: JS objects by constructor, closures by function name, strings and code as one group
 * each, internal V8 objects (`system / Context`, maps, arrays) by their name.
 */
export function groupOf(type: string, name: string): string {
  switch (type) {
    case 'object':
      return name;
    case 'closure':
      return `closure ${name === '' ? '(anonymous)' : name}`;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'code':
      return '(code)';
    case 'number':
    case 'heap number':
      return '(number)';
    default:
      return `(${type}) ${name}`.trim();
  }
}

/**
 * Immediate dominators from node 0 (the snapshot's root), by the iterative algorithm of Cooper, Harvey and Kennedy
 * ("A Simple, Fast Dominance Algorithm") over a reverse post-order.
 */
function dominators(
  count: number,
  firstEdge: Int32Array,
  targets: Int32Array,
): { order: Int32Array; idom: Int32Array } {
  // Post-order by an explicit-stack depth-first walk.
  const postIndex = new Int32Array(count).fill(-1);
  const visited = new Uint8Array(count);
  const post: number[] = [];
  const stack: number[] = [0];
  const cursor = new Int32Array(count);
  visited[0] = 1;
  cursor[0] = firstEdge[0]!;
  while (stack.length > 0) {
    const node = stack[stack.length - 1]!;
    if (cursor[node]! < firstEdge[node + 1]!) {
      const next = targets[cursor[node]!]!;
      cursor[node]!++;
      if (visited[next] === 0) {
        visited[next] = 1;
        cursor[next] = firstEdge[next]!;
        stack.push(next);
      }
      continue;
    }
    stack.pop();
    postIndex[node] = post.length;
    post.push(node);
  }
  const order = Int32Array.from(post).reverse();
  // Predecessors (reachable ones only) as a CSR.
  const predCount = new Int32Array(count + 1);
  for (const node of order) {
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge++) predCount[targets[edge]! + 1]!++;
  }
  for (let node = 0; node < count; node++) predCount[node + 1]! += predCount[node]!;
  const preds = new Int32Array(predCount[count]!);
  const fill = predCount.slice(0, count);
  for (const node of order) {
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge++) preds[fill[targets[edge]!]!++] = node;
  }
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (left: number, right: number): number => {
    let a = left;
    let b = right;
    while (a !== b) {
      while (postIndex[a]! < postIndex[b]!) a = idom[a]!;
      while (postIndex[b]! < postIndex[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let index = 1; index < order.length; index++) {
      const node = order[index]!;
      let candidate = -1;
      for (let edge = predCount[node]!; edge < predCount[node + 1]!; edge++) {
        const pred = preds[edge]!;
        if (idom[pred] === -1) continue;
        candidate = candidate === -1 ? pred : intersect(pred, candidate);
      }
      if (candidate !== -1 && idom[node] !== candidate) {
        idom[node] = candidate;
        changed = true;
      }
    }
  }
  return { order, idom };
}

/** `after − before` of each group, divided by `per` (e.g. the number of connections), largest first. */
export function diffGroups(
  before: Map<string, HeapGroup>,
  after: Map<string, HeapGroup>,
  per: number,
): { label: string; count: number; bytes: number }[] {
  const labels = new Set([...before.keys(), ...after.keys()]);
  return [...labels]
    .map((label) => ({
      label,
      count: ((after.get(label)?.count ?? 0) - (before.get(label)?.count ?? 0)) / per,
      bytes: ((after.get(label)?.bytes ?? 0) - (before.get(label)?.bytes ?? 0)) / per,
    }))
    .sort((a, b) => b.bytes - a.bytes);
}
