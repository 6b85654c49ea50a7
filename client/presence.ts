import type { MetadataMessage, PresenceMessage, SessionMetadata, Watcher } from '../shared/protocol.ts';
import { MAX_WATCHER_LABEL_LENGTH } from '../shared/protocol-parse.ts';
import { HubClientError } from './errors.ts';
import { isNewerMetadata } from '../shared/session-metadata.ts';

/** What a subscription follows besides the log (`subscribe(id, { presence, label, metadata })`). */
export interface PresenceRequest {
  readonly presence: boolean;
  readonly label?: string;
  /** Follow the session's metadata (`metadata` frames). */
  readonly metadata?: boolean;
}

/** A change of who watches a session: the whole list, and who joined and left since the last one. */
export interface PresenceChange {
  readonly watchers: readonly Watcher[];
  readonly joined: readonly Watcher[];
  readonly left: readonly Watcher[];
}

/** Checks the presence and metadata options of `subscribe` (JS callers too); undefined when none were given. */
export function checkPresenceRequest(
  options: { readonly presence?: unknown; readonly label?: unknown; readonly metadata?: unknown },
  sessionId: string,
): PresenceRequest | undefined {
  const { presence, label, metadata } = options;
  if (presence === undefined && label === undefined && metadata === undefined) return undefined;
  for (const [name, value] of [
    ['presence', presence],
    ['metadata', metadata],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw new HubClientError('BAD_REQUEST', `${name} must be a boolean`, { sessionId });
    }
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
  return { presence: presence === true, ...(label === undefined ? {} : { label }), metadata: metadata === true };
}

/**
 * The presence and metadata side of one subscription: the fields it sends on subscribe, the watchers and the
 * metadata it last heard of.
 */
export class PresenceView {
  readonly requestFields: { readonly presence?: true; readonly label?: string; readonly metadata?: true };
  #watchers: readonly Watcher[] = [];
  #metadata: SessionMetadata | undefined;

  constructor(request: PresenceRequest | undefined) {
    this.requestFields = {
      ...(request?.presence === true ? { presence: true } : {}),
      ...(request?.label === undefined ? {} : { label: request.label }),
      ...(request?.metadata === true ? { metadata: true } : {}),
    };
  }

  get metadata(): SessionMetadata | undefined {
    return this.#metadata;
  }

  /** Keeps the frame's metadata if it is newer than the one held (`isNewerMetadata`); returns it then, else undefined. */
  updateMetadata(message: MetadataMessage): SessionMetadata | undefined {
    if (!isNewerMetadata(message.metadata, this.#metadata)) return undefined;
    this.#metadata = message.metadata;
    return message.metadata;
  }

  get watchers(): readonly Watcher[] {
    return this.#watchers;
  }

  update(message: PresenceMessage): PresenceChange {
    this.#watchers = message.watchers;
    return { watchers: message.watchers, joined: message.joined, left: message.left };
  }
}
