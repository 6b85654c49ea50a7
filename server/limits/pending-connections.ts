/** A connection admitted as pending (no completed `hello` yet). Releasing it is idempotent. */
export interface PendingTicket {
  /** It completed `hello` (it now counts against `maxConnections`) or it closed. */
  release(): void;
}

export interface PendingLimits {
  readonly maxPendingConnections: number;
  readonly maxPendingPerAddress: number;
}

interface Entry {
  readonly address: string;
  readonly drop: () => void;
  released: boolean;
}

/**
 * The budget of connections that have not completed `hello` yet: at most `maxPendingPerAddress` from one remote
 * address (more are refused) and `maxPendingConnections` in all. When the budget is full, a new connection drops
 * the oldest pending one: an idle upgrade has already had longer than a legitimate client needs to send `hello`,
 * so a flood of them can only push itself out, never the client that speaks.
 */
export class PendingConnections {
  readonly #limits: PendingLimits;
  /** In arrival order (oldest first). */
  readonly #entries = new Set<Entry>();
  readonly #perAddress = new Map<string, number>();

  constructor(limits: PendingLimits) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Admit a new pending connection from `address`; `drop` cuts it if it has to make room later. Undefined when the
   * address is at its cap (the caller refuses the connection).
   */
  admit(address: string, drop: () => void): PendingTicket | undefined {
    if ((this.#perAddress.get(address) ?? 0) >= this.#limits.maxPendingPerAddress) return undefined;
    while (this.#entries.size >= this.#limits.maxPendingConnections) {
      const oldest = this.#entries.values().next().value;
      if (oldest === undefined) break;
      this.#release(oldest);
      oldest.drop();
    }
    const entry: Entry = { address, drop, released: false };
    this.#entries.add(entry);
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    return { release: () => this.#release(entry) };
  }

  #release(entry: Entry): void {
    if (entry.released) return;
    entry.released = true;
    this.#entries.delete(entry);
    const left = (this.#perAddress.get(entry.address) ?? 1) - 1;
    if (left > 0) this.#perAddress.set(entry.address, left);
    else this.#perAddress.delete(entry.address);
  }
}
