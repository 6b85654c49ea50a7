import { HubErrorCode } from '../../shared/protocol.ts';
import { MessageProjector } from '../../shared/index.ts';
import { HubError } from '../hub-error.ts';
import type { SnapshotSource } from '../snapshot/snapshot-source.ts';
import type { HttpReply } from './http-reply.ts';

const EMPTY_STATE = Object.freeze(new MessageProjector().exportState());

/**
 * `GET /v1/sessions/:id/snapshot[?atOrBefore=N]`: the session's latest projection snapshot, `{ sessionId, epoch, seq,
 * headSeq, state }`. The hub keeps the latest one only: with `atOrBefore` below it the answer is the empty
 * projection at seq -1 (page the events from seq 0 instead); so is it while the session has no snapshot yet.
 */
export async function snapshotReply(
  sessionId: string,
  atOrBefore: number | undefined,
  snapshots: SnapshotSource | undefined,
): Promise<HttpReply> {
  if (snapshots === undefined) throw new HubError(HubErrorCode.NOT_FOUND, 'this hub serves no snapshots');
  const served = await snapshots.read(sessionId);
  const usable = atOrBefore === undefined || served.seq <= atOrBefore;
  const body = {
    sessionId,
    epoch: served.epoch ?? '',
    seq: usable ? served.seq : -1,
    headSeq: served.headSeq,
    state: usable ? served.state : EMPTY_STATE,
  };
  return { status: 200, body };
}
