import { describe, expect, it } from 'vitest';
import { SessionLogError, SessionLogErrorCode } from '../../shared/index.ts';
import { HubErrorCode } from '../../shared/protocol.ts';

describe('error code tables', () => {
  it('every session-log code is also a wire code with the same spelling', () => {
    for (const code of ['INVALID_JSON', 'INVALID_EVENT', 'SURFACE_VIOLATION'] as const) {
      expect(HubErrorCode[code]).toBe(SessionLogErrorCode[code]);
    }
  });

  it('SessionLogError carries code, path and seq', () => {
    const error = new SessionLogError('INVALID_JSON', 'bad', { path: 'data.x', seq: 3 });
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.path, error.seq, error.name]).toEqual(['INVALID_JSON', 'data.x', 3, 'SessionLogError']);
  });
});
