import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../../server/cli/cli-args.ts';
import { randomSecret } from '../helpers/tokens.ts';
import { watchChild } from '../helpers/child-watch.ts';

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));

function run(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  watchChild(child, 'session-hub serve', { exitExpected: true }); // a crash still fails the test
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/** Start `serve`, resolve once it printed its auth line (with the URL and everything printed so far). */
async function startServing(env: Record<string, string>) {
  const child = spawn(process.execPath, [binPath, 'serve', '--port', '0'], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  watchChild(child, 'session-hub serve', { exitExpected: true }); // a crash still fails the test
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const output = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/^auth: .*$/m.test(text)) resolve(text);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)}: ${text}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  return {
    output,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('session-hub serve: auth flags', () => {
  it('parses the auth flags and env into an auth config', () => {
    const secret = randomSecret();
    expect(parseServeArgs([`--auth-secret=${secret}`, '--auth-issuer', 'id'], {})).toMatchObject({
      auth: { mode: 'token', key: { kind: 'secret', secret }, issuer: 'id' },
    });
    expect(parseServeArgs([], { AUTH_JWKS_FILE: '/k.json', REQUIRE_AUTH: 'true' })).toMatchObject({
      auth: { mode: 'token', key: { kind: 'jwks', file: '/k.json' } },
    });
    expect(() => parseServeArgs(['--require-auth'], {})).toThrow(UsageError);
    expect(() => parseServeArgs(['--auth-secret', 's', '--auth-jwks', 'f'], {})).toThrow(/only one/);
  });

  it('refuses to start with --require-auth and no key, or with an unusable key', async () => {
    const required = await run(['--require-auth'], { AUTH_SECRET: '' });
    expect(required.code).toBe(2);
    expect(required.output).toMatch(/auth is required/);
    const short = await run(['--auth-secret', 'short'], {});
    expect(short.code).toBe(1);
    expect(short.output).toMatch(/at least 32 bytes/);
    const missing = await run(['--auth-public-key', '/nonexistent/key.pem'], {});
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/cannot read public-key file/);
  });

  it('says loudly that it runs open without a key, and quietly which key it uses otherwise', async () => {
    const open = await startServing({ AUTH_SECRET: '', REQUIRE_AUTH: '' });
    expect(open.output).toMatch(/auth: \*\*\* AUTH DISABLED.*OPEN/);
    await open.stop();
    const secured = await startServing({ AUTH_SECRET: randomSecret() });
    expect(secured.output).toMatch(/auth: JWT bearer tokens required \(HS256 shared secret\)/);
    const refused = await fetch(`${secured.url}/v1/sessions/x/events`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    await secured.stop();
  });
});
