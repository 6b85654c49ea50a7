import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { parseServeArgs, serveUsage, UsageError } from '../../server/cli/cli-args.ts';
import { test as it } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { thrown } from '../helpers/thrown.ts';

const snapshotsOf = (args: readonly string[], env: Record<string, string> = {}) => {
  const options = parseServeArgs(args, env);
  if (options === 'help') throw new Error('unexpected help');
  return options.snapshots;
};

async function appendTicks(hub: HubProcess, sessionId: string, count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, index) => ({ type: 'test/tick', data: { index } }));
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  expect(response.status).toBe(201);
}

async function servedSeq(hub: HubProcess, sessionId: string): Promise<number> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/snapshot`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { seq: number }).seq;
}

describe('session-hub serve: the snapshot policy flags', () => {
  it('parses the flags and their environment variables (flags win); unset ones keep the defaults', () => {
    expect(snapshotsOf([])).toEqual({});
    expect(
      snapshotsOf([
        '--snapshot-every-events',
        '50',
        '--snapshot-every-bytes',
        '65536',
        '--snapshot-at-turn-end',
        'off',
      ]),
    ).toEqual({ everyEvents: 50, everyBytes: 65536, atTurnEnd: false });
    expect(
      snapshotsOf(['--snapshot-every-events', '7'], {
        SESSION_HUB_SNAPSHOT_EVERY_EVENTS: '9',
        SESSION_HUB_SNAPSHOT_EVERY_BYTES: '1000',
        SESSION_HUB_SNAPSHOT_AT_TURN_END: 'on',
      }),
    ).toEqual({ everyEvents: 7, everyBytes: 1000, atTurnEnd: true });
    expect(snapshotsOf(['--no-snapshots'])).toEqual({ enabled: false });
    expect(snapshotsOf([], { SESSION_HUB_SNAPSHOTS: '0' })).toEqual({ enabled: false });
    expect(snapshotsOf([], { SESSION_HUB_SNAPSHOTS: 'on' })).toEqual({});
    expect(serveUsage).toMatch(/--snapshot-every-events <n>[\s\S]*--no-snapshots/);
  });

  it('refuses bad values and a policy flag next to --no-snapshots, naming the flag', () => {
    const refusals: [readonly string[], Record<string, string>, RegExp][] = [
      [['--snapshot-every-events', '0'], {}, /--snapshot-every-events "0"/],
      [['--snapshot-every-bytes', '1e6'], {}, /--snapshot-every-bytes "1e6"/],
      [['--snapshot-at-turn-end', 'maybe'], {}, /--snapshot-at-turn-end "maybe" \(on or off\)/],
      [[], { SESSION_HUB_SNAPSHOT_EVERY_EVENTS: '-3' }, /SESSION_HUB_SNAPSHOT_EVERY_EVENTS "-3"/],
      [[], { SESSION_HUB_SNAPSHOTS: 'sometimes' }, /SESSION_HUB_SNAPSHOTS/],
      [['--no-snapshots', '--snapshot-every-events', '5'], {}, /drop --snapshot-every-events/],
    ];
    for (const [args, env, message] of refusals) {
      const error = thrown(() => parseServeArgs(args, env));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('a node started with --snapshot-every-events 5 (flag) or 3 (env) builds at those seqs', async ({ redis }) => {
    const keyPrefix = `cli-${randomUUID().slice(0, 8)}:`;
    const byFlag = await HubProcess.start([
      '--redis',
      redis.url,
      '--key-prefix',
      keyPrefix,
      '--snapshot-every-events',
      '5',
      '--snapshot-at-turn-end',
      'off',
    ]);
    const byEnv = await HubProcess.start(['--redis', redis.url, '--key-prefix', keyPrefix], {
      SESSION_HUB_SNAPSHOT_EVERY_EVENTS: '3',
    });
    try {
      await appendTicks(byFlag, 'flag', 5);
      await appendTicks(byEnv, 'env', 3);
      // Far below the default 500: only the flags make these snapshots.
      await vi.waitFor(async () => expect(await servedSeq(byFlag, 'flag')).toBe(4), { timeout: 20_000, interval: 50 });
      await vi.waitFor(async () => expect(await servedSeq(byEnv, 'env')).toBe(2), { timeout: 20_000, interval: 50 });
    } finally {
      await Promise.all([byFlag.terminate(), byEnv.terminate()]);
    }
  });

  it('a node started with --no-snapshots builds none, even past the default 500 events', async ({ redis, admin }) => {
    const keyPrefix = `cli-${randomUUID().slice(0, 8)}:`;
    const hub = await HubProcess.start(['--redis', redis.url, '--key-prefix', keyPrefix, '--no-snapshots']);
    let stopped: { code: number | null } | undefined;
    try {
      await appendTicks(hub, 'off', 600);
      expect(await servedSeq(hub, 'off')).toBe(-1);
    } finally {
      // A graceful stop waits for every build the node started: none may have been.
      stopped = await hub.terminate();
    }
    expect(stopped.code).toBe(0);
    expect(await admin.xlen(`${keyPrefix}{off}:log`)).toBe(600);
    expect(await admin.exists(`${keyPrefix}{off}:snap`)).toBe(0);
  });
});
