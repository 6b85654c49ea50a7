import { describe, expect, it } from 'vitest';
import { formatProfileSummary, summarizeProfile, type CpuProfile } from '../../bench/profile.ts';

// root → handle (server/hub.ts) → encode (shared/codec.ts); (garbage collector); the profiler's own inspector work.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4, 5] },
    { id: 2, callFrame: { functionName: 'handle', url: 'file:///repo/server/hub.ts', lineNumber: 9 }, children: [3] },
    { id: 3, callFrame: { functionName: 'encode', url: 'file:///repo/shared/codec.ts', lineNumber: 19 } },
    { id: 4, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    { id: 5, callFrame: { functionName: 'post', url: 'node:inspector', lineNumber: 111 }, children: [6] },
    { id: 6, callFrame: { functionName: 'dispatch', url: '', lineNumber: -1 } },
  ],
  samples: [2, 3, 3, 3, 4, 6, 6],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('CPU profile summary', () => {
  it('attributes self time to functions and files, total time up the stack, and leaves out the profiler', () => {
    const summary = summarizeProfile(profile, '/repo/');
    expect(summary.totalMs).toBe(5);
    expect(summary.functions[0]).toEqual({ name: 'shared/codec.ts:encode (line 20)', selfMs: 3, share: 0.6 });
    expect(summary.files.map((entry) => entry.name)).toEqual([
      'shared/codec.ts',
      'server/hub.ts',
      '(garbage collector)',
    ]);
    const handle = summary.inclusive.find((entry) => entry.name === 'server/hub.ts:handle (line 10)');
    expect(handle?.selfMs).toBe(4);
    expect(formatProfileSummary(summary, 2)).toContain('60.0%        3 ms  shared/codec.ts:encode (line 20)');
  });
});
