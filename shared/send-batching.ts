/** The TCP socket under a Node `ws` WebSocket (`_socket`, not in its public types); absent in browsers. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

const corked = new WeakSet<object>();
const later: (task: () => void) => void =
  typeof setImmediate === 'function' ? (task) => void setImmediate(task) : queueMicrotask;

/**
 * Before a send: on Node (`ws`), cork the TCP socket until the current turn of the event loop is over, so that
 * the frames sent in one turn (the SDK's burst of pipelined appends, the hub's acks and live batches) leave in one
 * write instead of one syscall each; an idle connection pays at most one loop iteration of latency. Browsers
 * batch socket writes themselves: nothing to do there. Used by both the SDK and the hub (isomorphic, no imports).
 */
export function batchSendsOfThisTurn(socket: object): void {
  const tcp = (socket as { _socket?: Partial<Corkable> })._socket;
  if (tcp === undefined || typeof tcp.cork !== 'function' || typeof tcp.uncork !== 'function') return;
  if (corked.has(tcp)) return;
  corked.add(tcp);
  tcp.cork();
  later(() => {
    corked.delete(tcp);
    tcp.uncork?.();
  });
}
