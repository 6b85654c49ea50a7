// `session-hub serve --archive …`: the flags and their environment variables, a bad location refused in one line,
// and a node that archives idle sessions by itself (archive, then trim) while every read stays the same.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, vi } from 'vitest';
import { parseServeArgs } from '../../server/cli/cli-args.ts';
import { test as it } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { thrown } from '../helpers/thrown.ts';
import { runCli } from './run-cli.ts';

const archiveOf = (args: readonly string[], env: Record<string, string> = {}) => {
  const options = parseServeArgs(args, env);
  if (options === 'help') throw new Error('unexpected help');
  return options.archive;
};

describe('session-hub serve: the archive flags', () => {
  it('parses the flags and their environment variables (flags win)', () => {
    expect(archiveOf([])).toBeUndefined();
    expect(archiveOf(['--archive', 'file:/tmp/a'])).toEqual({
      location: 'file:/tmp/a',
      policy: { archiveAfterMs: 3_600_000 },
    });
    expect(
      archiveOf(['--archive', 'file:/a', '--archive-after', '30m', '--hot-max-events', '5000'], {
        SESSION_HUB_HOT_MAX_BYTES: '1048576',
        SESSION_HUB_ARCHIVE_AFTER: '2d',
      }),
    ).toEqual({
      location: 'file:/a',
      policy: { archiveAfterMs: 1_800_000, hotMaxEvents: 5000, hotMaxBytes: 1_048_576 },
    });
    expect(archiveOf([], { SESSION_HUB_ARCHIVE: 'postgres://h/db', SESSION_HUB_ARCHIVE_AFTER: '90s' })).toEqual({
      location: 'postgres://h/db',
      policy: { archiveAfterMs: 90_000 },
    });
    expect(archiveOf(['--archive', 'file:/a', '--idempotency-window', '7d'])).toEqual({
      location: 'file:/a',
      policy: { archiveAfterMs: 3_600_000, idempotencyWindowMs: 7 * 86_400_000 },
    });
    expect(
      archiveOf(['--archive', 'file:/a', '--idempotency-window', '2h'], { SESSION_HUB_IDEMPOTENCY_WINDOW: '1d' }),
    ).toMatchObject({ policy: { idempotencyWindowMs: 7_200_000 } });
    expect(archiveOf(['--archive', 'file:/a'], { SESSION_HUB_IDEMPOTENCY_WINDOW: '90s' })).toMatchObject({
      policy: { idempotencyWindowMs: 90_000 },
    });
  });

  it('refuses bad values, and policy flags without --archive, naming the flag', () => {
    const refusals: [readonly string[], RegExp][] = [
      [['--archive', 'file:/a', '--archive-after', '1 hour'], /--archive-after "1 hour"/],
      [['--archive', 'file:/a', '--archive-after', '0s'], /--archive-after "0s"/],
      [['--archive', 'file:/a', '--hot-max-events', '-1'], /--hot-max-events "-1"/],
      [['--archive-after', '1h'], /--archive-after need\(s\) --archive/],
      [['--archive', 'file:/a', '--idempotency-window', 'forever'], /--idempotency-window "forever"/],
      [['--idempotency-window', '7d'], /--idempotency-window need\(s\) --archive/],
    ];
    for (const [args, message] of refusals) expect(thrown(() => parseServeArgs(args, {}))).toMatchObject({ message });
  });

  it('a location that names no backend: exits 1 with one line', async () => {
    const result = await runCli(['serve', '--port', '0', '--archive', 's3://bucket']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^session-hub: could not open the archive s3:\/\/bucket: .*file:<dir>.*\n$/);
  });

  it('a node with --archive archives idle sessions by itself; pages read the same bytes after', async ({ redis }) => {
    const dir = await mkdtemp(join(tmpdir(), 'sh-serve-archive-'));
    const hub = await HubProcess.start(['--redis', redis.url, '--archive', `file:${dir}`, '--archive-after', '1s']);
    try {
      expect(hub.stdout).toMatch(/^archive: file:.* \(sessions archived when idle 1s\)$/m);
      const sessionId = 'acme/serve-archive';
      const events = Array.from({ length: 30 }, (_, index) => ({ type: 'test/tick', data: { index } }));
      const posted = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      expect(posted.status).toBe(201);
      const page = () =>
        fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events?from=0`).then((r) => r.text());
      const before = await page();
      await vi.waitFor(
        async () => {
          const metrics = await (await fetch(`${hub.url}/metrics`)).text();
          expect(metrics).toMatch(/^session_hub_archive_runs_total 1$/m);
        },
        { timeout: 15_000, interval: 100 },
      );
      const head = await (await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}`)).json();
      expect(head).toMatchObject({ headSeq: 29 });
      expect(head).not.toHaveProperty('firstSeq'); // the archive holds seq 0 on: the session starts there
      expect(await page()).toBe(before);
    } finally {
      await hub.terminate();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
