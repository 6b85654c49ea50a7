import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { MessageProjector, Session } from '../../shared/index.ts';
import { decodeSnapshot, encodeSnapshot, toSnapshotRead } from '../../server/store/codec/snapshot-codec.ts';
import type { SessionSnapshot } from '../../server/store/snapshot-store.ts';

function sampleSnapshot(): SessionSnapshot {
  const session = new Session({ clock: () => 1 });
  session.append({ type: 'system/message', data: { content: 'Be brief.' } });
  session.append({ type: 'user/message', data: { role: 'user', content: 'héllo 😀' } });
  session.append({ type: 'system/message', data: { content: '' } });
  const projector = new MessageProjector();
  projector.applyAll(session.events);
  return { epoch: 'epoch-1', seq: 2, state: projector.exportState() };
}

describe('snapshot codec', () => {
  it('round-trips a snapshot', () => {
    const snapshot = sampleSnapshot();
    expect(decodeSnapshot(encodeSnapshot(snapshot))).toEqual({ status: 'ok', snapshot });
  });

  it('detects every flipped byte: a spoiled value never decodes to another snapshot', () => {
    const snapshot = sampleSnapshot();
    const bytes = encodeSnapshot(snapshot);
    for (let index = 0; index < bytes.length; index++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const spoiled = Buffer.from(bytes);
        spoiled[index]! ^= mask;
        const decoded = decodeSnapshot(spoiled);
        expect(decoded.status, `byte ${index} ^ ${mask}`).toBe('corrupt');
      }
    }
  });

  it('detects a truncated value', () => {
    const bytes = encodeSnapshot(sampleSnapshot());
    expect(decodeSnapshot(bytes.subarray(0, bytes.length - 1)).status).toBe('corrupt');
    expect(decodeSnapshot(new Uint8Array()).status).toBe('corrupt');
  });

  it('reports another format version (with a good checksum) apart from corruption', () => {
    const packr = new Packr({ useRecords: false, mapsAsObjects: true });
    const good = packr.unpack(encodeSnapshot(sampleSnapshot())) as Record<string, unknown>;
    const forged = packr.pack({ ...good, formatVersion: 2 });
    // The checksum covers the version: a forged version without a new checksum is corruption.
    expect(decodeSnapshot(forged).status).toBe('corrupt');
    const otherVersion = encodeSnapshot(sampleSnapshot(), 2);
    expect(decodeSnapshot(otherVersion)).toEqual({ status: 'other-version', formatVersion: 2 });
    expect(toSnapshotRead('epoch-1', 5, otherVersion)).toMatchObject({ status: 'none', reason: 'other-version' });
  });

  it('serves only a snapshot of the current epoch within the head', () => {
    const snapshot = sampleSnapshot();
    const bytes = encodeSnapshot(snapshot);
    expect(toSnapshotRead('epoch-1', 2, bytes)).toEqual({ status: 'found', snapshot, headSeq: 2 });
    expect(toSnapshotRead('epoch-2', 9, bytes)).toMatchObject({ status: 'none', reason: 'other-epoch' });
    expect(toSnapshotRead('epoch-1', 1, bytes)).toMatchObject({ status: 'none', reason: 'beyond-head' });
    expect(toSnapshotRead('', -1, bytes)).toMatchObject({ status: 'none', reason: 'missing', epoch: undefined });
    expect(toSnapshotRead('epoch-1', 2, undefined)).toMatchObject({ status: 'none', reason: 'missing' });
  });
});
