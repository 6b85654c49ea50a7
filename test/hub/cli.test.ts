import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { watchChild } from '../helpers/child-watch.ts';
import { test as it } from '../helpers/fixtures.ts';

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));

/** `session-hub serve <args>` as a child process, with what it printed on stdout and stderr so far. */
function serve(args: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  watchChild(child, 'session-hub serve', { exitExpected: true }); // a crash still fails the test
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output,
    exited,
    /** Resolves once the node printed its auth line (the last line of a start). */
    started: async () => {
      await expect.poll(() => /^auth: /m.test(output.stdout), { timeout: 20_000, interval: 50 }).toBe(true);
    },
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const password = 'S3cretPassw0rd';
/** The file's Redis for the test of a password-protected one. */
const withPassword = it.extend('redisOptions', { scope: 'file' }, { password });

describe('session-hub serve: process', () => {
  it('refuses an unknown log level (flag or LOG_LEVEL) with a usage error, exit code 2', async () => {
    for (const [args, env] of [
      [['--log-level', 'verbose'], {}],
      [[], { LOG_LEVEL: 'verbose' }],
    ] as const) {
      const node = serve(['--port', '0', ...args], env);
      expect(await node.exited).toBe(2);
      expect(node.output.stderr).toMatch(/^session-hub: invalid log level "verbose" \(one of trace, debug, info,/);
      expect(node.output.stderr).not.toMatch(/^\s+at /m);
    }
  });

  it('says in one line that the port is taken, closes the store and exits with code 1', async ({ redis }) => {
    const taken: Server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      // With a Redis store open, the process only exits if the store is closed.
      const node = serve(['--port', String(port), '--redis', redis.url]);
      expect(await node.exited).toBe(1);
      expect(node.output.stderr).toBe(`session-hub: cannot listen on 127.0.0.1:${port}: address already in use\n`);
      expect(node.output.stdout).not.toMatch(/listening on/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('puts the node name on every log line, the default name as well as --node-name', async () => {
    const logLines = async (args: readonly string[]) => {
      const node = serve(['--port', '0', '--log-level', 'info', ...args], { NODE_NAME: '' });
      await node.started();
      // Start and stop go to stdout only: a request is what makes the node log (`session deleted`).
      const url = /listening on (http:\S+)/.exec(node.output.stdout)![1]!;
      expect((await fetch(`${url}/v1/sessions/logged`, { method: 'DELETE' })).status).toBe(404);
      expect(await node.stop()).toBe(0);
      return node.output.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { name?: string; node?: string; msg: string });
    };
    const named = await logLines(['--node-name', 'my-node-7']);
    expect(named.map((line) => line.msg)).toEqual(['session deleted']);
    for (const line of named) expect(line, line.msg).toMatchObject({ name: 'session-hub', node: 'my-node-7' });
    const unnamed = await logLines([]);
    const name = unnamed[0]?.node;
    expect(name).toMatch(/-\d+-[0-9a-f]{6}$/);
    for (const line of unnamed) expect(line, line.msg).toMatchObject({ node: name });
  });

  withPassword(
    'never shows the Redis password: not in the engine line, nor in the logs of a start or a failed start',
    async ({ redis: guarded }) => {
      const url = `redis://:${password}@127.0.0.1:${guarded.port}`;
      const node = serve(['--port', '0', '--redis', url, '--log-level', 'trace']);
      await node.started();
      expect(await node.stop()).toBe(0);
      expect(node.output.stdout).toMatch(`engine: redis (redis://:***@127.0.0.1:${guarded.port})`);
      expect(node.output.stdout + node.output.stderr).not.toContain(password);

      const unreachable = `redis://admin:${password}@127.0.0.1:${await freePort()}?password=${password}`;
      const failed = serve(['--port', '0', '--redis', unreachable, '--log-level', 'trace']);
      expect(await failed.exited).toBe(1);
      expect(failed.output.stderr).toMatch(/could not open the store/);
      expect(failed.output.stderr).toContain(`redis://admin:***@127.0.0.1:`);
      expect(failed.output.stdout + failed.output.stderr).not.toContain(password);
    },
  );
});
