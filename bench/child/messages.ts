/** IPC between the bench runner and a server child process (hub or baseline). */

/** What a server child reports once it listens. */
export interface ChildReady {
  readonly kind: 'ready';
  /** Port of each server the child runs (one, or one per node). */
  readonly ports: readonly number[];
}

export type ChildOperation = 'mark' | 'sample' | 'gc' | 'snapshot' | 'stop';

export interface ChildRequest {
  readonly kind: 'request';
  readonly id: number;
  readonly op: ChildOperation;
}

/** Resource use of the child since the last `mark`, plus its memory now. */
export interface ChildSample {
  readonly wallMs: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** Event-loop delay (monitorEventLoopDelay, 10 ms resolution) since the last `mark`. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** V8 heap committed (used plus free space in its pages). */
  readonly heapTotalBytes: number;
  /** Memory of C++ objects bound to JS objects (buffers included), as V8 accounts it. */
  readonly externalBytes: number;
  /** The CPU profile of the window, when profiling (`npm run bench -- --profile`). */
  readonly profileFile?: string;
  /** The heap snapshot written after GC (`snapshot`). */
  readonly snapshotFile?: string;
}

export interface ChildReply {
  readonly kind: 'reply';
  readonly id: number;
  readonly sample?: ChildSample;
  readonly error?: string;
}

export type ChildMessage = ChildReady | ChildReply;

/** CPU milliseconds (user + system) of a sample. */
export function cpuMs(sample: ChildSample): number {
  return sample.cpuUserMs + sample.cpuSystemMs;
}
