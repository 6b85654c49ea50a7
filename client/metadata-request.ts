import type { ClientMessage, ServerMessage } from '../shared/protocol.ts';
import {
  MetadataError,
  parseMetadataPatch,
  type MetadataPatch,
  type SessionMetadata,
} from '../shared/session-metadata.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import type { RequestTracker } from './requests.ts';

/** What a metadata request needs of the client: its requests, its connection, and word when it is connected. */
export interface MetadataLink {
  readonly requests: RequestTracker;
  isConnected(): boolean;
  send(message: ClientMessage): boolean;
  /** Calls `listener` each time the client is connected (again); returns the stop function. */
  onConnected(listener: () => void): () => void;
}

/** The patch checked as the hub will check it: a bad one is INVALID_METADATA at once, and nothing is sent. */
function checkedPatch(sessionId: string, patch: MetadataPatch): MetadataPatch {
  try {
    return parseMetadataPatch(patch);
  } catch (error) {
    if (!(error instanceof MetadataError)) throw error;
    throw new HubClientError('INVALID_METADATA', error.message, { sessionId, details: { field: error.field } });
  }
}

/**
 * Sends `setMetadata` once connected and resolves with the session's metadata after the patch. A connection lost
 * before the answer sends it again on the next one (a merge patch gives the same metadata when applied twice).
 * No answer within `timeoutMs`: TIMEOUT (NOT_SENT when it never went out). The hub's refusals reject with its code.
 */
export function sendMetadataPatch(
  link: MetadataLink,
  sessionId: string,
  patch: MetadataPatch,
  timeoutMs: number,
): Promise<SessionMetadata> {
  let checked: MetadataPatch;
  try {
    checked = checkedPatch(sessionId, patch);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise<SessionMetadata>((resolve, reject) => {
    let id: number | undefined;
    let sent = false;
    let stopWaiting = (): void => undefined;
    const finish = (): void => {
      clearTimeout(timer);
      stopWaiting();
      if (id !== undefined) link.requests.forget(id);
    };
    const onReply = (reply: ServerMessage): void => {
      id = undefined;
      finish();
      if (reply.type === 'metadata') resolve(reply.metadata);
      else if (reply.type === 'error') {
        reject(new HubClientError(reply.code, reply.message, { sessionId, details: reply.details }));
      } else reject(new HubClientError(ClientErrorCode.PROTOCOL, `unexpected ${reply.type} in reply to setMetadata`));
    };
    const trySend = (): void => {
      if (id !== undefined || !link.isConnected()) return;
      const requestId = link.requests.nextId();
      link.requests.track(requestId, { onReply, onLost: () => (id = undefined) });
      id = requestId;
      if (link.send({ type: 'setMetadata', id: requestId, sessionId, patch: checked })) sent = true;
      else {
        link.requests.forget(requestId);
        id = undefined;
      }
    };
    const timer = setTimeout(() => {
      finish();
      const code = sent ? ClientErrorCode.TIMEOUT : ClientErrorCode.NOT_SENT;
      reject(new HubClientError(code, `setMetadata of ${sessionId}: no answer in ${timeoutMs} ms`, { sessionId }));
    }, timeoutMs);
    stopWaiting = link.onConnected(trySend);
    trySend();
  });
}
