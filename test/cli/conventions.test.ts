import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hubEnv } from '../../server/cli/env.ts';
import { freePort } from '../helpers/free-port.ts';
import { randomSecret } from '../helpers/tokens.ts';
import { runCli, startCli } from './run-cli.ts';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('session-hub: the conventions operators expect', { timeout: 60_000 }, () => {
  it('--version prints the package version; no command prints the usage and exits 2', async () => {
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const bare = await runCli([]);
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toMatch(/^Usage: session-hub <command>/);
    for (const command of ['serve', 'tail', 'export', 'import', 'sessions', 'rm', 'erase', 'token']) {
      expect(bare.stderr).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(await runCli(['frobnicate'])).toMatchObject({ code: 2 });
  });

  it('SESSION_HUB_<NAME> wins over the short alias; each start and stop fact is printed once, on stdout', async () => {
    const [port, other] = [await freePort(), await freePort()];
    const node = startCli(['serve'], {
      SESSION_HUB_PORT: String(port),
      PORT: String(other),
      AUTH_SECRET: randomSecret(),
      LOG_LEVEL: 'info',
    });
    await expect.poll(() => node.output.stdout, { timeout: 30_000, interval: 50 }).toMatch(/^auth: /m);
    node.child.kill('SIGTERM');
    const { code, stdout, stderr } = await node.done;
    expect(code).toBe(0);
    expect(stdout).toBe(
      `session-hub listening on http://127.0.0.1:${port} (WebSocket ws://127.0.0.1:${port}/v1/ws)\n` +
        'engine: memory (embedded: one process only, NOTHING IS PERSISTED; use --redis for durable, multi-node logs)\n' +
        'auth: JWT bearer tokens required (HS256 shared secret)\n' +
        'session-hub stopped (SIGTERM)\n',
    );
    // The JSON log (stderr, at info) is what happens while the node runs: a start and a stop add nothing to it.
    expect(stderr).toBe('');
  });

  it('an open hub says AUTH DISABLED once (stdout), and stops in one line', async () => {
    const node = startCli(['serve', '--port', '0'], { LOG_LEVEL: 'info' });
    await expect.poll(() => node.output.stdout, { timeout: 30_000, interval: 50 }).toMatch(/^auth: /m);
    node.child.kill('SIGINT');
    const { code, stdout, stderr } = await node.done;
    expect(code).toBe(0);
    expect(`${stdout}${stderr}`.match(/AUTH DISABLED/g)).toHaveLength(1);
    expect(stdout).toMatch(/^auth: \*\*\* AUTH DISABLED: .* \*\*\*\nsession-hub stopped \(SIGINT\)\n$/m);
    expect(stderr).toBe('');
  });

  it('a store that cannot be reached at start is one line with its cause, exit 1', async () => {
    const port = await freePort();
    const result = await runCli(['serve', '--port', '0', '--redis', `redis://:pw@127.0.0.1:${port}`], {
      LOG_LEVEL: 'info',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^session-hub: could not open the store at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*\\n$`,
      ),
    );
  });

  it('hubEnv: the prefixed name wins, the short one is an alias, an empty value counts as unset', () => {
    const env = hubEnv({ SESSION_HUB_PORT: '9000', PORT: '8000', REDIS_URL: 'redis://a' });
    expect(env['PORT']).toBe('9000');
    expect(env['REDIS_URL']).toBe('redis://a');
    expect(hubEnv({ SESSION_HUB_HOST: '', HOST: '0.0.0.0' })['HOST']).toBe('0.0.0.0');
  });
});
