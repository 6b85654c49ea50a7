import { createHash } from 'node:crypto';
import { Packr } from 'msgpackr';
import { PROJECTOR_FORMAT_VERSION, checkProjectorState } from '../../../shared/index.ts';
import type { SessionSnapshot, SnapshotRead } from '../snapshot-store.ts';

/**
 * The stored form of a snapshot: the msgpack map `{ formatVersion, epoch, seq, checksum, state }`, where `state` is
 * the msgpack bytes of the `ProjectorState` and `checksum` the SHA-256 of the other four fields (so a flipped byte
 * anywhere in the value is detected).
 */
const packr = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

function checksumOf(formatVersion: number, epoch: string, seq: number, state: Uint8Array): Buffer {
  return createHash('sha256').update(`${formatVersion}\u0000${epoch}\u0000${seq}\u0000`).update(state).digest();
}

/** The stored value of `snapshot` (`formatVersion`: only tests write another than the projector's). */
export function encodeSnapshot(snapshot: SessionSnapshot, formatVersion = PROJECTOR_FORMAT_VERSION): Buffer {
  const state = packr.pack(snapshot.state);
  const checksum = checksumOf(formatVersion, snapshot.epoch, snapshot.seq, state);
  return packr.pack({
    formatVersion,
    epoch: snapshot.epoch,
    seq: snapshot.seq,
    checksum,
    state,
  });
}

export type DecodedSnapshot =
  | { readonly status: 'ok'; readonly snapshot: SessionSnapshot }
  | { readonly status: 'other-version'; readonly formatVersion: number }
  | { readonly status: 'corrupt'; readonly reason: string };

/** Decodes and verifies a stored snapshot; never throws. */
export function decodeSnapshot(bytes: Uint8Array): DecodedSnapshot {
  let value: unknown;
  try {
    value = packr.unpack(bytes);
  } catch (error) {
    return { status: 'corrupt', reason: `undecodable msgpack (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null) return { status: 'corrupt', reason: 'not a map' };
  const { formatVersion, epoch, seq, checksum, state } = value as Record<string, unknown>;
  if (typeof formatVersion !== 'number' || typeof epoch !== 'string' || typeof seq !== 'number') {
    return { status: 'corrupt', reason: 'a field is missing or of a wrong type' };
  }
  if (!(checksum instanceof Uint8Array) || !(state instanceof Uint8Array)) {
    return { status: 'corrupt', reason: 'checksum or state is not binary' };
  }
  if (!checksumOf(formatVersion, epoch, seq, state).equals(checksum)) {
    return { status: 'corrupt', reason: 'checksum mismatch' };
  }
  if (formatVersion !== PROJECTOR_FORMAT_VERSION) return { status: 'other-version', formatVersion };
  try {
    const checked = checkProjectorState(packr.unpack(state));
    if (checked.length !== seq + 1) return { status: 'corrupt', reason: 'state length does not match its seq' };
    return { status: 'ok', snapshot: { epoch, seq, state: checked } };
  } catch (error) {
    return { status: 'corrupt', reason: `bad state (${(error as Error).message})` };
  }
}

/**
 * What a snapshot read answers, from what the engine read in one atomic step: the session's epoch ('' or undefined
 * when it has none), its head, and the stored snapshot bytes (undefined when there are none).
 */
export function toSnapshotRead(
  currentEpoch: string | undefined,
  headSeq: number,
  bytes: Uint8Array | undefined,
): SnapshotRead {
  const epoch = currentEpoch === '' ? undefined : currentEpoch;
  if (bytes === undefined || epoch === undefined) return { status: 'none', reason: 'missing', epoch, headSeq };
  const decoded = decodeSnapshot(bytes);
  if (decoded.status === 'corrupt') return { status: 'corrupt', reason: decoded.reason, epoch, headSeq };
  if (decoded.status === 'other-version') return { status: 'none', reason: 'other-version', epoch, headSeq };
  const { snapshot } = decoded;
  if (snapshot.epoch !== epoch) return { status: 'none', reason: 'other-epoch', epoch, headSeq };
  if (snapshot.seq > headSeq) return { status: 'none', reason: 'beyond-head', epoch, headSeq };
  return { status: 'found', snapshot, headSeq };
}
