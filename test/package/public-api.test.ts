import { describe, expect, it } from 'vitest';
import * as protocol from '../../shared/protocol-index.ts';
import * as server from '../../server/index.ts';
import * as shared from '../../shared/index.ts';

/**
 * The runtime names of the package's entry points, on purpose: a new export is a promise to users, so adding one
 * means adding it here too (types are checked by test/package/consumer/consumer.ts).
 */
describe('public API', () => {
  it('session-hub/server: what an embedder needs, nothing internal', () => {
    expect(Object.keys(server).sort()).toEqual([
      'Archiver',
      'DEFAULT_SNAPSHOT_POLICY',
      'HubError',
      'HubErrorCode',
      'MemoryStore',
      'RedisStore',
      'WS_PATH',
      'archiveBackendFor',
      'createAuthenticator',
      'createHub',
      'createHubAuth',
      'defaultLimits',
      'jwksKey',
      'openAuth',
      'publicKeyFromPem',
      'secretKey',
    ]);
  });

  it('session-hub/shared: the log core, no wire protocol', () => {
    const names = Object.keys(shared);
    expect(names).toContain('Session');
    expect(names).toContain('deriveMessages');
    expect(names.filter((name) => name in protocol)).toEqual([]);
  });

  it('session-hub/protocol: message codes, codec and parsers', () => {
    expect(Object.keys(protocol).sort()).toEqual([
      'CloseCode',
      'FrameDecodeError',
      'HubErrorCode',
      'METADATA_LIMITS',
      'PROTOCOL_BOUNDS',
      'PROTOCOL_VERSION',
      'ProtocolParseError',
      'SUPPORTED_PROTOCOL_VERSIONS',
      'decodeFrame',
      'encodeFrame',
      'encodeTextFrame',
      'parseClientMessage',
      'parseServerMessage',
    ]);
  });
});
