/** Called for every event a subscriber receives: the writer's index and intended send time. */
export type OnDelivery = (index: number, sentAtMs: number) => void;

export interface Closable {
  close(): void;
}

/** The one writer of a fan-out run. */
export interface FanoutWriter extends Closable {
  /** Append one event (stamped with `index` and `sentAtMs`); resolves on the server's ack. */
  append(index: number, sentAtMs: number): Promise<void>;
}

/** One system under test in the fan-out scenario (hub, raw ws relay, Socket.IO), seen from its clients. */
export interface FanoutSystem {
  readonly name: string;
  /** One subscriber connection on `port`, subscribed to `sessionId` (resolves once subscribed). */
  subscribe(port: number, sessionId: string, onDelivery: OnDelivery): Promise<Closable>;
  writer(port: number, sessionId: string): Promise<FanoutWriter>;
}
