import type { JsonObject } from '../../shared/json.ts';
import type { ChunkCoalescer } from './chunk-coalescer.ts';
import { losslessParse, wellFormed } from './lossless.ts';
import type { StreamedToolCall } from './types.ts';

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; arguments: string };

/**
 * Assembles the assistant message from a provider's deltas, block by block (blocks keyed by the provider's
 * index, and ordered by it), and sends each delta to the coalescer as it comes: `text-delta`, `reasoning-delta`
 * and `tool-call-delta` chunks (the first of a call carries its `id` and `name`).
 */
export class MessageAssembler {
  readonly #blocks = new Map<number, Block>();
  readonly #chunks: ChunkCoalescer;

  constructor(chunks: ChunkCoalescer) {
    this.#chunks = chunks;
  }

  text(slot: number, delta: string): void {
    const block = this.#block(slot, () => ({ kind: 'text', text: '' }));
    if (block.kind !== 'text' || delta === '') return;
    block.text += delta;
    this.#chunks.add(`text:${slot}`, { type: 'text-delta' }, 'text', delta);
  }

  thinking(slot: number, delta: string): void {
    const block = this.#block(slot, () => ({ kind: 'thinking', thinking: '', signature: '' }));
    if (block.kind !== 'thinking' || delta === '') return;
    block.thinking += delta;
    this.#chunks.add(`thinking:${slot}`, { type: 'reasoning-delta' }, 'text', delta);
  }

  signature(slot: number, delta: string): void {
    const block = this.#block(slot, () => ({ kind: 'thinking', thinking: '', signature: '' }));
    if (block.kind === 'thinking') block.signature += delta;
  }

  redacted(slot: number, data: string): void {
    this.#block(slot, () => ({ kind: 'redacted', data }));
  }

  toolStart(slot: number, id: string, name: string): void {
    if (this.#blocks.has(slot)) return;
    this.#blocks.set(slot, { kind: 'tool', id, name, arguments: '' });
    this.#chunks.add(`tool:${slot}`, { type: 'tool-call-delta', index: slot, id, name }, 'arguments', '');
  }

  toolArguments(slot: number, delta: string): void {
    const block = this.#blocks.get(slot);
    if (block?.kind !== 'tool' || delta === '') return;
    block.arguments += delta;
    this.#chunks.add(`tool:${slot}`, { type: 'tool-call-delta', index: slot }, 'arguments', delta);
  }

  /** The provider's final arguments text of a call (replaces what the deltas built). */
  toolArgumentsDone(slot: number, text: string): void {
    const block = this.#blocks.get(slot);
    if (block?.kind === 'tool') block.arguments = text;
  }

  /**
   * The message content (blocks in provider order, empty text dropped) and the tool calls. An interrupted stream
   * keeps no tool calls: a call cut off mid-arguments cannot run. (A call
   * without a name is malformed and dropped too.)
   */
  build(interrupted: boolean): { content: JsonObject[]; calls: StreamedToolCall[] } {
    const content: JsonObject[] = [];
    const calls: StreamedToolCall[] = [];
    for (const [, block] of [...this.#blocks].sort(([a], [b]) => a - b)) {
      if (block.kind === 'text' && block.text !== '') content.push({ type: 'text', text: wellFormed(block.text) });
      if (block.kind === 'thinking' && (block.thinking !== '' || block.signature !== '')) {
        const signature = block.signature === '' ? {} : { signature: wellFormed(block.signature) };
        content.push({ type: 'thinking', thinking: wellFormed(block.thinking), ...signature });
      }
      if (block.kind === 'redacted') content.push({ type: 'redacted_thinking', data: wellFormed(block.data) });
      if (block.kind !== 'tool' || block.name === '' || interrupted) continue;
      const args = wellFormed(block.arguments.trim() === '' ? '{}' : block.arguments);
      const input = losslessParse(args) ?? {};
      const [id, name] = [wellFormed(block.id), wellFormed(block.name)];
      content.push({ type: 'tool_use', id, name, input });
      calls.push({ callId: id, name, arguments: args, input });
    }
    return { content, calls };
  }

  #block(slot: number, create: () => Block): Block {
    let block = this.#blocks.get(slot);
    if (block === undefined) {
      block = create();
      this.#blocks.set(slot, block);
    }
    return block;
  }
}
