// What the session view derives from the raw log, apart from the derived messages (the SDK projects those).
import type { SessionEvent } from '../../shared/index.ts';

/**
 * What the session view keeps beside the derived messages, updated per event in O(1) (amortized) so a 100,000-event
 * log costs nothing per frame: which surface events a later `replace` hid, and the text streaming in the newest step.
 */
export class LogView {
  readonly #replacedBy = new Map<number, number>();
  readonly #bySeq = new Map<number, SessionEvent>();
  #streamParts: string[] = [];
  #streamStep: string | undefined;

  /** For each surface event a later `replace` hid: the seq of the replacing event. */
  get replacedBy(): ReadonlyMap<number, number> {
    return this.#replacedBy;
  }

  /** Text streamed by `assistant/chunk`s of the newest step that has no `assistant/message` yet ('' when none). */
  get streamingText(): string {
    return this.#streamParts.join('');
  }

  add(event: SessionEvent): void {
    this.#bySeq.set(event.seq, event);
    const op = event.surfaceOp;
    if (op !== undefined && op !== 'append') {
      for (let seq = op.startSeq; seq <= op.endSeq; seq += 1) {
        if (this.#bySeq.get(seq)?.surfaceOp !== undefined) this.#replacedBy.set(seq, event.seq);
      }
    }
    const data = event.data as { turn?: number; step?: number; chunk?: unknown } | undefined;
    const step = `${data?.turn ?? ''}/${data?.step ?? ''}`;
    if (event.type === 'assistant/chunk') {
      if (this.#streamStep !== step) this.#streamParts = [];
      this.#streamStep = step;
      const chunk = data?.chunk as { text?: unknown } | string | undefined;
      if (typeof chunk === 'string') this.#streamParts.push(chunk);
      else if (typeof chunk?.text === 'string') this.#streamParts.push(chunk.text);
    } else if (event.type === 'turn/end' || (event.type === 'assistant/message' && this.#streamStep === step)) {
      this.#streamParts = [];
      this.#streamStep = undefined;
    }
  }

  static of(events: readonly SessionEvent[]): LogView {
    const view = new LogView();
    for (const event of events) view.add(event);
    return view;
  }
}

/** One short line about an event for the log view. */
export function eventSummary(event: SessionEvent): string {
  const data = event.data as Record<string, unknown> | undefined;
  switch (event.type) {
    case 'turn/start':
    case 'turn/end':
      return `turn ${String(data?.['turn'])}${event.type === 'turn/end' ? ` (${reasonOf(data)})` : ''}`;
    case 'step/start':
    case 'step/end':
      return `turn ${String(data?.['turn'])} step ${String(data?.['step'])}`;
    case 'user/message':
    case 'system/message':
      return clip(textOf(data?.['content']));
    case 'assistant/chunk':
      return clip(textOf(data?.['chunk']));
    case 'assistant/message':
      return clip(textOf((data?.['message'] as Record<string, unknown> | undefined)?.['content']));
    case 'tool/call':
      return clip(`${String(data?.['name'])}(${String(data?.['arguments'])})`);
    case 'tool/result':
      return clip(textOf((data?.['message'] as Record<string, unknown> | undefined)?.['content']));
    default:
      return clip(JSON.stringify(event.data));
  }
}

function reasonOf(data: Record<string, unknown> | undefined): string {
  const reason = data?.['reason'] as { kind?: unknown } | undefined;
  return typeof reason?.kind === 'string' ? reason.kind : '?';
}

/** The readable text of a message content: a string, or the `text` of its parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => textOf(part)).join('');
  if (content !== null && typeof content === 'object') {
    const part = content as Record<string, unknown>;
    if (typeof part['text'] === 'string') return part['text'];
    if (part['type'] === 'tool_use' || part['type'] === 'tool-call-delta') return '';
  }
  return content === undefined ? '' : JSON.stringify(content);
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}
