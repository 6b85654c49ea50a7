import { describe, expect, it } from 'vitest';
import { diffGroups, HeapSnapshot } from '../../bench/heap-snapshot.ts';

/** A hand-made snapshot in V8's format: root → Connection → (Object, closure → string), root → Other → Object. */
function tinySnapshot(): string {
  const nodeTypes = [
    'hidden',
    'array',
    'string',
    'object',
    'code',
    'closure',
    'regexp',
    'number',
    'native',
    'synthetic',
  ];
  const edgeTypes = ['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'];
  const strings = ['', 'Connection', 'Object', 'onMessage', 'Other', 'x', 'field'];
  const node = (type: string, name: number, id: number, size: number, edges: number): number[] => [
    nodeTypes.indexOf(type),
    name,
    id,
    size,
    edges,
  ];
  const edge = (type: string, to: number): number[] => [edgeTypes.indexOf(type), 6, to * 5];
  return JSON.stringify({
    snapshot: {
      meta: {
        node_fields: ['type', 'name', 'id', 'self_size', 'edge_count'],
        node_types: [nodeTypes],
        edge_fields: ['type', 'name_or_index', 'to_node'],
        edge_types: [edgeTypes],
      },
    },
    nodes: [
      ...node('synthetic', 0, 1, 0, 2),
      ...node('object', 1, 2, 100, 2),
      ...node('object', 2, 3, 10, 0),
      ...node('closure', 3, 4, 20, 2),
      ...node('object', 4, 5, 5, 1),
      ...node('string', 5, 6, 7, 0),
    ],
    edges: [
      ...edge('property', 1),
      ...edge('property', 4),
      ...edge('property', 2),
      ...edge('property', 3),
      ...edge('context', 5),
      ...edge('weak', 4),
      ...edge('property', 2),
    ],
    strings,
  });
}

describe('heap snapshot reader (bench/heap-breakdown.ts)', () => {
  it('groups objects by kind, and attributes bytes to their nearest dominating owner (weak edges ignored)', () => {
    const snapshot = HeapSnapshot.parse(tinySnapshot());
    const groups = snapshot.groups();
    expect(groups.get('Connection')).toEqual({ count: 1, bytes: 100 });
    expect(groups.get('closure onMessage')).toEqual({ count: 1, bytes: 20 });
    expect(groups.get('(string)')).toEqual({ count: 1, bytes: 7 });
    // The Object is reachable through the Connection and through Other: neither owns it.
    const owners = snapshot.owners((label) => label === 'Connection');
    expect(owners.get('Connection')).toEqual({ count: 3, bytes: 127 });
    expect(owners.get('(no owner)')).toEqual({ count: 3, bytes: 15 });
    expect(snapshot.retainedBy((label) => label === 'Connection' || label === 'Other')).toEqual(
      new Map([
        ['Connection', { count: 1, bytes: 127 }],
        ['Other', { count: 1, bytes: 5 }],
      ]),
    );
    expect(snapshot.owners((label) => label === 'Connection', true).get('Connection › closure onMessage')).toEqual({
      count: 1,
      bytes: 20,
    });
  });

  it('diffs two groupings per unit, largest first', () => {
    const before = new Map([['A', { count: 2, bytes: 100 }]]);
    const after = new Map([
      ['A', { count: 6, bytes: 300 }],
      ['B', { count: 2, bytes: 400 }],
    ]);
    expect(diffGroups(before, after, 2)).toEqual([
      { label: 'B', count: 1, bytes: 200 },
      { label: 'A', count: 2, bytes: 100 },
    ]);
  });
});
