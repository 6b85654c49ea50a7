import { vi } from 'vitest';
import WebSocket from 'ws';
import type { SessionEvent } from '../../shared/events.ts';
import type { Subscription, WebSocketConstructor } from '../../client/index.ts';

/** A `ws` subclass that remembers its live instances, so a test can kill the client side of a connection. */
export function trackingWebSocket(): { WebSocket: WebSocketConstructor; open: Set<WebSocket> } {
  const open = new Set<WebSocket>();
  class Tracked extends WebSocket {
    constructor(url: string) {
      super(url);
      open.add(this);
      this.once('close', () => open.delete(this));
    }
  }
  return { WebSocket: Tracked, open };
}

/** Wait until the subscription holds `seq` (generous timeout: the machine is shared). */
export async function untilSeq(subscription: Subscription, seq: number, timeout = 20_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (subscription.lastSeq < seq) throw new Error(`at ${subscription.lastSeq}, waiting for ${seq}`);
    },
    { timeout, interval: 20 },
  );
}

/** Seqs must be 0..n-1 with no gap or duplicate. */
export function seqsAreContiguous(events: readonly SessionEvent[]): boolean {
  return events.every((event, index) => event.seq === index);
}

/** Every listener call of `name` on `emitter`, recorded. */
export function record<T>(subscribe: (listener: (value: T) => void) => unknown): T[] {
  const seen: T[] = [];
  subscribe((value) => seen.push(value));
  return seen;
}
