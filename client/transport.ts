/**
 * The subset of the WHATWG WebSocket API the SDK uses. Browsers' `WebSocket` and the `ws` package both fit it;
 * pass either (or a subclass) as the `WebSocket` option.
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((event: never) => void) | null;
  onmessage: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** What the SDK reads from a message event. */
export interface SocketMessageEvent {
  readonly data: unknown;
}

/** What the SDK reads from a close event. */
export interface SocketCloseEvent {
  readonly code: number;
  readonly reason: string;
}

/** `readyState` of an open socket (the same in browsers and `ws`). */
export const SOCKET_OPEN = 1;

/** Turn a message event's payload into what the codec decodes. */
export function frameBytes(data: unknown): Uint8Array | string | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}
