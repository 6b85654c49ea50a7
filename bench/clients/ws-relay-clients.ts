import WebSocket from 'ws';
import { benchDraft, readStamp } from '../workload.ts';
import { decodeWire, encodeWire } from '../wire.ts';
import { Fifo } from './fifo.ts';
import type { Closable, FanoutSystem, FanoutWriter, OnDelivery } from './types.ts';

/** Open a ws connection and resolve once it is open. */
export function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.once('open', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Deliver the bench events of a decoded `events` message. */
export function deliverEvents(message: unknown, onDelivery: OnDelivery): void {
  const events = (message as { type?: unknown; events?: unknown }).events;
  if ((message as { type?: unknown }).type !== 'events' || !Array.isArray(events)) return;
  for (const event of events as { data?: unknown }[]) {
    const stamp = readStamp(event.data);
    if (stamp !== undefined) onDelivery(stamp.i, stamp.t);
  }
}

/**
 * Clients of the raw ws relay: the writer pre-encodes exactly the `events` frame the hub would send (seq, time,
 * data), the relay forwards it unchanged, subscribers decode it like hub frames.
 */
export const wsRelaySystem: FanoutSystem = {
  name: 'raw ws broadcast',
  async subscribe(port: number, _sessionId: string, onDelivery: OnDelivery): Promise<Closable> {
    const socket = await openSocket(`ws://127.0.0.1:${port}/?role=sub`);
    socket.on('message', (frame: Buffer) => deliverEvents(decodeWire(frame), onDelivery));
    return { close: () => socket.terminate() };
  },
  async writer(port: number, sessionId: string): Promise<FanoutWriter> {
    const socket = await openSocket(`ws://127.0.0.1:${port}/?role=pub`);
    const acks = new Fifo<() => void>();
    socket.on('message', () => acks.shift()?.());
    let seq = 0;
    return {
      append(index: number, sentAtMs: number): Promise<void> {
        const event = { seq: seq++, time: Date.now(), ...benchDraft(index, sentAtMs) };
        socket.send(encodeWire({ type: 'events', sessionId, events: [event] }));
        return new Promise((resolve) => acks.push(resolve));
      },
      close: () => socket.terminate(),
    };
  },
};
