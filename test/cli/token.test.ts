import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubProcess } from '../helpers/hub-process.ts';
import { randomSecret } from '../helpers/tokens.ts';
import { runCli, runCliHere } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'session-hub-token-'));

/** The HTTP status a request with `token` gets. */
async function status(hub: HubProcess, token: string | undefined, method: string, path: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const body = method === 'POST' ? JSON.stringify({ events: [{ type: 'test/tick', data: {} }] }) : undefined;
  const response = await fetch(`${hub.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  await response.arrayBuffer();
  return response.status;
}

describe('session-hub token (HS256) against a --require-auth hub', { timeout: 60_000 }, () => {
  const secret = randomSecret();
  let hub: HubProcess;
  beforeAll(async () => {
    hub = await HubProcess.start(['--require-auth'], { SESSION_HUB_AUTH_SECRET: secret });
  });
  afterAll(() => hub?.terminate());

  it('mints a token the hub accepts for exactly its grants', async () => {
    const minted = await runCli(
      ['token', '--sub', 'alice', '--grant', 'read:acme/*', '--grant', 'append:acme/run-1', '--ttl', '10m'],
      { SESSION_HUB_AUTH_SECRET: secret },
    );
    expect(minted.code).toBe(0);
    expect(minted.stderr).toMatch(/^token for alice \(HS256\): read acme\/\*; append acme\/run-1; expires \d{4}-/);
    const token = minted.stdout.trim();
    expect(await status(hub, token, 'POST', '/v1/sessions/acme%2Frun-1/events')).toBe(201);
    expect(await status(hub, token, 'GET', '/v1/sessions/acme%2Frun-1/events')).toBe(200);
    expect(await status(hub, token, 'GET', '/v1/sessions/acme%2Fteam%2Frun-9')).toBe(200);
    expect(await status(hub, token, 'POST', '/v1/sessions/acme%2Frun-2/events')).toBe(403);
    expect(await status(hub, token, 'GET', '/v1/sessions/other%2Frun-1')).toBe(403);
    expect(await status(hub, token, 'GET', '/v1/sessions')).toBe(403);
    expect(await status(hub, token, 'DELETE', '/v1/sessions/acme%2Frun-1')).toBe(403);
    expect(await status(hub, undefined, 'GET', '/v1/sessions/acme%2Frun-1')).toBe(401);
  });

  it('the other commands carry SESSION_HUB_TOKEN: an admin lists and deletes, a reader may not', async () => {
    const mint = async (...grants: string[]) =>
      (
        await runCliHere(['token', '--sub', 'ops', ...grants.flatMap((grant) => ['--grant', grant])], {
          AUTH_SECRET: secret,
        })
      ).stdout.trim();
    const admin = await mint('admin:*', 'read:*');
    const reader = await mint('read:*');
    const env = (token: string) => ({ SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: token });
    expect(await status(hub, admin, 'POST', '/v1/sessions/acme%2Fops/events')).toBe(403);
    const listed = await runCliHere(['sessions', '--json'], env(admin));
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as unknown);
    expect(rows).toContainEqual(
      expect.objectContaining({ sessionId: 'acme/run-1', headSeq: 0, events: 1, watchers: 0 }),
    );
    const refused = await runCliHere(['sessions'], env(reader));
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^session-hub: FORBIDDEN: /) });
    expect((await runCliHere(['rm', 'acme/run-1', '--yes'], env(reader))).code).toBe(1);
    expect(await runCliHere(['rm', 'acme/run-1', '--yes'], env(admin))).toMatchObject({
      code: 0,
      stderr: 'deleted acme/run-1\n',
    });
    expect(await runCliHere(['rm', 'acme/run-1', '--yes'], env(admin))).toMatchObject({ code: 1 });
    const tail = await runCliHere(['tail', 'acme/run-1'], env(await mint('read:other/*')));
    expect(tail).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^session-hub: the token does not grant read on this session\n$/),
    });
  });

  it('refuses bad grants, a short secret and a missing key as usage errors (exit 2)', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--grant', 'write:acme/*'], { AUTH_SECRET: secret }, /action read, append, admin or redact/],
      [['--grant', 'read:acme*'], { AUTH_SECRET: secret }, /uses \* other than/],
      [['--grant', 'read:x'], { AUTH_SECRET: 'short' }, /at least 32 bytes/],
      [['--grant', 'read:x'], {}, /no signing key/],
      [['--grant', 'read:x', '--ttl', '1y'], { AUTH_SECRET: secret }, /--ttl must be a duration/],
    ];
    for (const [args, env, message] of cases) {
      const result = await runCliHere(['token', '--sub', 'a', ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('session-hub token --key (RS256, ES256) against a hub with the public key', { timeout: 60_000 }, () => {
  const hubs: HubProcess[] = [];
  afterAll(() => Promise.all(hubs.map((hub) => hub.terminate())));

  it.each([
    ['RS256', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ES256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
  ] as const)('%s: accepted for its grants', async (alg, generate) => {
    const { publicKey, privateKey } = generate();
    const publicFile = join(dir, `${alg}.pub.pem`);
    const privateFile = join(dir, `${alg}.pem`);
    writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const hub = await HubProcess.start(['--auth-public-key', publicFile]);
    hubs.push(hub);
    const minted = await runCliHere(['token', '--sub', 'bob', '--grant', 'read:s-1', '--key', privateFile]);
    expect(minted.stderr).toMatch(new RegExp(`^token for bob \\(${alg}\\): read s-1;`));
    const token = minted.stdout.trim();
    expect(await status(hub, token, 'GET', '/v1/sessions/s-1')).toBe(200);
    expect(await status(hub, token, 'GET', '/v1/sessions/s-2')).toBe(403);
    expect(await status(hub, token, 'POST', '/v1/sessions/s-1/events')).toBe(403);
  });
});
