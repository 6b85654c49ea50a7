import { describe, expect, it } from 'vitest';
import { SessionLogError, SessionLogErrorCode } from '../../shared/index.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { toHubError } from '../../server/hub-error.ts';

/** Session-log codes an append can fail with on the hub: they reach clients under the same name. */
const WIRE_CODES = ['INVALID_JSON', 'INVALID_EVENT', 'SURFACE_VIOLATION', 'LIFECYCLE_VIOLATION'] as const;
/** Codes only a local caller sees (a stored log, a re-entrant subscriber, the provider adapters). */
const LOCAL_CODES = [
  'INVALID_LOG',
  'INVALID_SNAPSHOT',
  'REENTRANT_APPEND',
  'UNPAIRED_TOOL_MESSAGE',
  'UNSUPPORTED_MESSAGE',
] as const;

describe('error code tables', () => {
  it('every session-log code is spelled as its name and is either a wire code or a local one, not both', () => {
    for (const [name, code] of Object.entries(SessionLogErrorCode)) expect(code).toBe(name);
    // A new code fails here until it is put in one of the two lists.
    expect(Object.values(SessionLogErrorCode).sort()).toEqual([...WIRE_CODES, ...LOCAL_CODES].sort());
  });

  it.each(WIRE_CODES)('%s is a wire code of the same spelling, and the hub reports it as such', (code) => {
    expect(HubErrorCode[code]).toBe(SessionLogErrorCode[code]);
    const error = toHubError(new SessionLogError(code, 'bad', { path: 'data.x', seq: 3 }));
    expect([error.code, error.details]).toEqual([code, { path: 'data.x', seq: 3 }]);
  });

  it.each(LOCAL_CODES)('%s is no wire code: a hub that meets it answers INTERNAL', (code) => {
    expect(Object.values(HubErrorCode)).not.toContain(code);
    expect(toHubError(new SessionLogError(code, 'bad')).code).toBe(HubErrorCode.INTERNAL);
  });

  it('SessionLogError carries code, path and seq', () => {
    const error = new SessionLogError('INVALID_JSON', 'bad', { path: 'data.x', seq: 3 });
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.path, error.seq, error.name]).toEqual(['INVALID_JSON', 'data.x', 3, 'SessionLogError']);
  });
});
