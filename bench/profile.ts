/** The parts of a V8 `.cpuprofile` (node --cpu-prof) the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
    };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  /** `file:function` (file relative to the repo, or the Node internal / native name). */
  readonly name: string;
  readonly selfMs: number;
  /** Share of all sampled time, 0..1. */
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Self time by function, largest first. */
  readonly functions: readonly ProfileEntry[];
  /** Self time by file (or bucket: node internals, native, GC, idle), largest first. */
  readonly files: readonly ProfileEntry[];
  /** Total time (self + callees) by function, largest first. */
  readonly inclusive: readonly ProfileEntry[];
}

function fileOf(url: string, functionName: string, root: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  if (path.startsWith(root)) return path.slice(root.length);
  if (path.startsWith('node:')) return path;
  return path;
}

function sorted(map: Map<string, number>, totalMs: number): ProfileEntry[] {
  return [...map.entries()]
    .map(([name, selfMs]) => ({ name, selfMs, share: totalMs === 0 ? 0 : selfMs / totalMs }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

/** Aggregate a CPU profile: self time per function and per file, and inclusive time per function. */
export function summarizeProfile(profile: CpuProfile, root: string): ProfileSummary {
  const selfByNode = new Map<number, number>();
  let totalMs = 0;
  profile.samples.forEach((nodeId, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    totalMs += ms;
    selfByNode.set(nodeId, (selfByNode.get(nodeId) ?? 0) + ms);
  });
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const functionName = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    const file = fileOf(frame.url, frame.functionName, root);
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    // `file:function`; the line only where it means something (tsx-transformed sources all report line 1).
    if (frame.url === '') return name;
    return frame.lineNumber > 0 ? `${file}:${name} (line ${frame.lineNumber + 1})` : `${file}:${name}`;
  };
  // The profiler's own start/stop (node:inspector) runs inside the window: leave it out.
  const isProfilerWork = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)?.callFrame.url === 'node:inspector') return true;
    }
    return false;
  };
  for (const id of [...selfByNode.keys()]) {
    if (isProfilerWork(id)) {
      totalMs -= selfByNode.get(id)!;
      selfByNode.delete(id);
    }
  }
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of selfByNode) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const name = functionName(id);
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const file = fileOf(frame.url, frame.functionName, root);
    files.set(file, (files.get(file) ?? 0) + ms);
    // Charge the sample to every distinct function on its stack once (recursion counted once).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const stackName = functionName(at);
      if (seen.has(stackName)) continue;
      seen.add(stackName);
      inclusive.set(stackName, (inclusive.get(stackName) ?? 0) + ms);
    }
  }
  return {
    totalMs,
    functions: sorted(functions, totalMs),
    files: sorted(files, totalMs),
    inclusive: sorted(inclusive, totalMs),
  };
}

/** Plain-text report of the top `top` entries of each list. */
export function formatProfileSummary(summary: ProfileSummary, top = 25): string {
  const section = (title: string, entries: readonly ProfileEntry[]): string[] => [
    title,
    ...entries
      .slice(0, top)
      .map(
        (entry) =>
          `  ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.selfMs.toFixed(0).padStart(7)} ms  ${entry.name}`,
      ),
  ];
  return [
    `total sampled: ${summary.totalMs.toFixed(0)} ms`,
    ...section('self time by file:', summary.files),
    ...section('self time by function:', summary.functions),
    ...section('total time (self + callees) by function:', summary.inclusive),
  ].join('\n');
}
