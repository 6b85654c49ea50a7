import { isSurfaceType } from '../shared/index.ts';

/** What `AgentWriter` knows about a session's lifecycle: a fold over its events (stored or about to be). */
export interface WriterState {
  /** Seq the next event will get. */
  nextSeq: number;
  /** Number of the last turn started (0 before the first). */
  turn: number;
  turnOpen: boolean;
  /** Number of the last step started in the current turn (0 before the first). */
  step: number;
  stepOpen: boolean;
  /** Tool calls of the open turn still waiting for their result: callId → tool name, oldest first. */
  openCalls: Map<string, string>;
  /** Seqs of the chunks streamed in the open step since its last assistant message. */
  chunkSeqs: number[];
  /** The surface: the nodes the model sees, in order (tool results keep their data, for pruning). */
  surface: SurfaceNode[];
}

export interface SurfaceNode {
  readonly seq: number;
  readonly type: string;
  /** Kept for `tool/result` nodes only. */
  readonly data?: unknown;
}

/** The event fields the fold reads. */
export interface FoldableEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
  readonly surfaceOp?: 'append' | { readonly op: 'replace'; readonly startSeq: number; readonly endSeq: number };
}

export function emptyWriterState(): WriterState {
  return {
    nextSeq: 0,
    turn: 0,
    turnOpen: false,
    step: 0,
    stepOpen: false,
    openCalls: new Map(),
    chunkSeqs: [],
    surface: [],
  };
}

function field(data: unknown, name: string): unknown {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[name] : undefined;
}

/** Advance `state` past one event (mutates and returns it). */
export function foldEvent(state: WriterState, event: FoldableEvent): WriterState {
  state.nextSeq = event.seq + 1;
  const replacing = typeof event.surfaceOp === 'object';
  switch (event.type) {
    case 'turn/start':
      state.turn = Number(field(event.data, 'turn'));
      state.turnOpen = true;
      state.step = 0;
      state.stepOpen = false;
      state.openCalls.clear();
      state.chunkSeqs = [];
      break;
    case 'turn/end':
      state.turnOpen = false;
      state.stepOpen = false;
      state.openCalls.clear();
      state.chunkSeqs = [];
      break;
    case 'step/start':
      state.step = Number(field(event.data, 'step'));
      state.stepOpen = true;
      state.chunkSeqs = [];
      break;
    case 'step/end':
      state.stepOpen = false;
      state.chunkSeqs = [];
      break;
    case 'assistant/chunk':
      state.chunkSeqs.push(event.seq);
      break;
    case 'assistant/message':
      if (!replacing) state.chunkSeqs = [];
      break;
    case 'tool/call':
      state.openCalls.set(String(field(event.data, 'callId')), String(field(event.data, 'name')));
      break;
    case 'tool/result':
      if (!replacing) answerCall(state, field(event.data, 'message'));
      break;
    default:
      break;
  }
  if (isSurfaceType(event.type)) foldSurface(state, event);
  return state;
}

/** Match a result to its call: by `toolCallId`, else the oldest open call of the same tool (the reference rule). */
function answerCall(state: WriterState, message: unknown): void {
  const id = field(message, 'toolCallId');
  if (typeof id === 'string' && state.openCalls.has(id)) {
    state.openCalls.delete(id);
    return;
  }
  const name = field(message, 'toolName');
  for (const [callId, callName] of state.openCalls) {
    if (callName === name) {
      state.openCalls.delete(callId);
      return;
    }
  }
}

function foldSurface(state: WriterState, event: FoldableEvent): void {
  const op = event.surfaceOp ?? 'append';
  const node: SurfaceNode =
    event.type === 'tool/result'
      ? { seq: event.seq, type: event.type, data: event.data }
      : { seq: event.seq, type: event.type };
  if (op === 'append') {
    state.surface.push(node);
    return;
  }
  const start = state.surface.findIndex((node) => node.seq === op.startSeq);
  const end = state.surface.findIndex((node) => node.seq === op.endSeq);
  if (start >= 0 && end >= start) state.surface.splice(start, end - start + 1, node);
}

/** Seq of the current system prompt: the first `system/message` on the surface, if any. */
export function systemPromptSeq(state: WriterState): number | undefined {
  return state.surface.find((node) => node.type === 'system/message')?.seq;
}

/** The tool result for `callId` currently on the surface (the latest one), if any. */
export function toolResultNode(state: WriterState, callId: string): SurfaceNode | undefined {
  for (let index = state.surface.length - 1; index >= 0; index--) {
    const node = state.surface[index]!;
    if (node.type === 'tool/result' && field(field(node.data, 'message'), 'toolCallId') === callId) return node;
  }
  return undefined;
}
