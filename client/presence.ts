import type { PresenceMessage, Watcher } from '../shared/protocol.ts';
import { MAX_WATCHER_LABEL_LENGTH } from '../shared/protocol-parse.ts';
import { HubClientError } from './errors.ts';

/** What a subscription asks of presence (`subscribe(id, { presence, label })`). */
export interface PresenceRequest {
  readonly presence: boolean;
  readonly label?: string;
}

/** A change of who watches a session: the whole list, and who joined and left since the last one. */
export interface PresenceChange {
  readonly watchers: readonly Watcher[];
  readonly joined: readonly Watcher[];
  readonly left: readonly Watcher[];
}

/** Checks the presence options of `subscribe` (JS callers too); undefined when none were given. */
export function checkPresenceRequest(
  options: { readonly presence?: unknown; readonly label?: unknown },
  sessionId: string,
): PresenceRequest | undefined {
  const { presence, label } = options;
  if (presence === undefined && label === undefined) return undefined;
  if (presence !== undefined && typeof presence !== 'boolean') {
    throw new HubClientError('BAD_REQUEST', 'presence must be a boolean', { sessionId });
  }
  if (label !== undefined && (typeof label !== 'string' || label.length > MAX_WATCHER_LABEL_LENGTH)) {
    throw new HubClientError(
      'BAD_REQUEST',
      `label must be a string of at most ${MAX_WATCHER_LABEL_LENGTH} characters`,
      {
        sessionId,
      },
    );
  }
  return { presence: presence === true, ...(label === undefined ? {} : { label }) };
}

/** The presence side of one subscription: the fields it sends on subscribe, the watchers it last heard of. */
export class PresenceView {
  readonly requestFields: { readonly presence?: true; readonly label?: string };
  #watchers: readonly Watcher[] = [];

  constructor(request: PresenceRequest | undefined) {
    this.requestFields = {
      ...(request?.presence === true ? { presence: true } : {}),
      ...(request?.label === undefined ? {} : { label: request.label }),
    };
  }

  get watchers(): readonly Watcher[] {
    return this.#watchers;
  }

  update(message: PresenceMessage): PresenceChange {
    this.#watchers = message.watchers;
    return { watchers: message.watchers, joined: message.joined, left: message.left };
  }
}
