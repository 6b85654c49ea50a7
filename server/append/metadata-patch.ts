import { HubErrorCode } from '../../shared/protocol.ts';
import { parseMetadataPatch, type SessionMetadata } from '../../shared/session-metadata.ts';
import { HubError } from '../hub-error.ts';
import type { MetadataStore } from '../store/metadata-store.ts';

/**
 * A metadata patch from a client (WebSocket `setMetadata` or HTTP `PATCH /v1/sessions/:id`), the caller having
 * checked the `append` right: checked (`MetadataError`, INVALID_METADATA), merged, and published to every node.
 * A session that does not exist is NOT_FOUND; either way nothing is changed on an error.
 */
export async function patchMetadata(
  metadata: MetadataStore,
  sessionId: string,
  rawPatch: unknown,
): Promise<SessionMetadata> {
  const patch = parseMetadataPatch(rawPatch);
  const result = await metadata.patch(sessionId, patch);
  if (result === undefined) {
    throw new HubError(HubErrorCode.NOT_FOUND, `session ${sessionId} does not exist (append to it first)`);
  }
  return result;
}
