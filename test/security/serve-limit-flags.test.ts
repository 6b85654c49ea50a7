import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLimits } from '../../server/limits/limits.ts';
import { parseServeArgs, serveUsage, UsageError } from '../../server/cli/cli-args.ts';
import { LIMIT_FLAGS } from '../../server/cli/limit-flags.ts';
import { errorOf, rawRequest, serve, serveToExit, type Served } from './serve-process.ts';

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const json = { 'content-type': 'application/json' };

// "Every limit gets a flag and an env var on `serve`" (issue 11): before, e.g. the per-connection append rate
// could only be changed from code.
describe('session-hub serve: every limit as a flag and a SESSION_HUB_ env variable', () => {
  it('lists each limit of HubLimits in --help with its env variable and default', () => {
    // maxTokenLifetimeMs is the one limit without a default (unset: a token lives until its exp).
    expect(LIMIT_FLAGS.map((flag) => flag.limit).sort()).toEqual(
      [...Object.keys(defaultLimits), 'maxTokenLifetimeMs'].sort(),
    );
    expect(serveUsage).toContain('--max-token-lifetime-ms <n>');
    expect(serveUsage).toContain('env SESSION_HUB_MAX_TOKEN_LIFETIME_MS; default unset)');
    for (const [limit, value] of Object.entries(defaultLimits)) {
      const env = `SESSION_HUB_${kebab(limit).replace(/-/g, '_').toUpperCase()}`;
      expect(serveUsage, limit).toContain(`--${kebab(limit)} <n>`);
      expect(serveUsage, limit).toContain(`env ${env}; default ${value})`);
    }
  });

  it('parses flags over env, and refuses what is not a positive integer', () => {
    const env = { SESSION_HUB_MAX_CONNECTIONS: '50', SESSION_HUB_APPENDS_PER_SECOND: '10' };
    expect(parseServeArgs(['--appends-per-second', '20', '--stall-timeout-ms=500'], env)).toMatchObject({
      limits: { maxConnections: 50, appendsPerSecond: 20, stallTimeoutMs: 500 },
    });
    for (const bad of ['0', '-1', '1.5', 'lots', '1e3']) {
      expect(() => parseServeArgs(['--max-frame-bytes', bad], {}), bad).toThrow(UsageError);
      expect(() => parseServeArgs([], { SESSION_HUB_MAX_FRAME_BYTES: bad }), bad).toThrow(UsageError);
    }
  });

  it('a bad limit value stops the start with a usage error (exit 2)', async () => {
    const run = await serveToExit([], { SESSION_HUB_HELLO_TIMEOUT_MS: 'soon' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/invalid SESSION_HUB_HELLO_TIMEOUT_MS "soon"/);
  });

  describe('a node started with limits from flags and env enforces them', () => {
    let hub: Served;
    beforeAll(async () => {
      hub = await serve(['--max-events-per-append', '2'], { SESSION_HUB_MAX_EVENT_BYTES: '300' });
    });
    afterAll(() => hub?.stop());

    it('refuses a batch over --max-events-per-append and an event over SESSION_HUB_MAX_EVENT_BYTES', async () => {
      const events = `${hub.url}/v1/sessions/limits/events`;
      const batch = await rawRequest(events, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ events: [user('a'), user('b'), user('c')] }),
      });
      expect(batch.status).toBe(413);
      expect(errorOf(batch).code).toBe('BATCH_TOO_LARGE');
      const large = await rawRequest(events, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ events: [user('x'.repeat(400))] }),
      });
      expect(large.status).toBe(413);
      expect(errorOf(large).code).toBe('EVENT_TOO_LARGE');
      const fine = await rawRequest(events, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ events: [user('a'), user('b')] }),
      });
      expect(fine.status).toBe(201);
    });
  });
});
