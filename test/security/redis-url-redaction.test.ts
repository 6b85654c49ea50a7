import { describe, expect, it } from 'vitest';
import { redactError, redisUrlProblem } from '../../server/cli/redact-url.ts';
import { test } from '../helpers/fixtures.ts';
import { serveToExit } from './serve-process.ts';

const password = 'S3cr#tPa55';
/** The file's Redis requires another password than the one the hub is given. */
const withPassword = test.extend('redisOptions', { scope: 'file' }, { password: 'the-right-one' });

// Hole 8 of issue 11: a malformed Redis URL put the whole URL, password included, into the fatal log line
// (the `input` property of the URL TypeError).
describe('a Redis password never reaches the output, whatever fails', () => {
  it('a malformed URL (a reserved character in the password): no password in stdout, stderr or the log', async () => {
    const url = `redis://admin:${password}@127.0.0.1:6379/0`;
    for (const args of [['--redis', url], []]) {
      const run = await serveToExit(args, { LOG_LEVEL: 'trace', ...(args.length === 0 ? { REDIS_URL: url } : {}) });
      expect(run.code).toBe(1);
      const output = run.stdout + run.stderr;
      expect(output).not.toContain('S3cr');
      expect(output).not.toContain('Pa55');
      expect(run.stderr).toMatch(/percent-encode the password/);
      expect(run.stderr).toMatch(/^session-hub: could not open the store: .*percent-encode the password.*\n$/m); // one clean line
    }
  });

  withPassword(
    'a refused password (WRONGPASS): the store trouble and the fatal line carry neither URL nor password',
    async ({ redis }) => {
      const url = redis.url.replace('redis://', `redis://:${encodeURIComponent(password)}@`);
      const run = await serveToExit(['--redis', url], { LOG_LEVEL: 'trace' });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/WRONGPASS/); // the cause is logged...
      expect(run.stderr).toContain('redis://:***@127.0.0.1'); // ...and the URL, redacted
      for (const secret of [password, encodeURIComponent(password), 'S3cr', 'Pa55']) {
        expect(run.stdout + run.stderr).not.toContain(secret);
      }
    },
  );

  it('redacts an error, its properties and its causes', () => {
    const url = `redis://:${password}@host:1`;
    const inner = Object.assign(new TypeError('Invalid URL'), { input: url, code: 'ERR_INVALID_URL' });
    const outer = new Error(`cannot connect to ${url} (password ${password})`, { cause: inner });
    const redacted = redactError(outer, url);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain('S3cr');
    expect(text).not.toContain('input');
    expect(redacted.cause).toMatchObject({ type: 'TypeError', message: 'Invalid URL', code: 'ERR_INVALID_URL' });
    expect(redacted.message).toBe('cannot connect to ***@host:1 (password ***)');
    expect(redisUrlProblem('redis://:p%23ss@127.0.0.1:6379')).toBeUndefined();
    expect(redisUrlProblem(url)).not.toContain('S3cr');
  });
});
