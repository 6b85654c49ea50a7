import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/** The node-wide count of subscriptions, against `maxSubscriptionsPerNode`. */
export class SubscriptionBudget {
  readonly #limit: number;
  #used = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Take one; throws TOO_MANY_SUBSCRIPTIONS (`details.scope: 'node'`) when the node is at its limit. */
  take(): void {
    if (this.#used >= this.#limit) {
      throw new HubError(
        HubErrorCode.TOO_MANY_SUBSCRIPTIONS,
        `this hub node holds its maximum of ${this.#limit} subscriptions; retry later or on another node`,
        { limit: this.#limit, scope: 'node' },
      );
    }
    this.#used++;
  }

  /** Give one back (a subscription ended). */
  give(): void {
    this.#used = Math.max(0, this.#used - 1);
  }
}
