import { describe, expect } from 'vitest';
import type { HubProcess } from '../helpers/hub-process.ts';
import { hubEngines } from './hub-engines.ts';
import { runCli, runCliHere } from './run-cli.ts';

const base = 1_700_000_000_000;

async function append(hub: HubProcess, sessionId: string, time: number): Promise<void> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'test/note', data: { time } }], time }),
  });
  expect(response.status).toBe(201);
}

async function setMetadata(hub: HubProcess, sessionId: string, patch: object): Promise<void> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(patch),
  });
  expect(response.status).toBe(200);
}

describe.each(hubEngines)('session-hub sessions ($name engine)', { timeout: 90_000 }, ({ it }) => {
  let hub: HubProcess;
  it.beforeAll(async ({ startHubProcess }) => {
    hub = await startHubProcess();
    await append(hub, 'acme/old', base + 1000);
    await append(hub, 'acme/new', base + 3000);
    await append(hub, 'globex/mid', base + 2000);
    await setMetadata(hub, 'acme/old', { title: 'The old one', labels: { team: 'red' } });
    await setMetadata(hub, 'globex/mid', { labels: { team: 'red', env: 'prod' } });
  });

  it('lists the sessions most recently active first, with title and labels (--json)', async () => {
    const listed = await runCliHere(['sessions', '--json', '--url', hub.url]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sessionId: string; title?: string; labels: object; lastActivity: number });
    expect(rows.map((row) => row.sessionId)).toEqual(['acme/new', 'globex/mid', 'acme/old']);
    expect(rows[2]).toMatchObject({ title: 'The old one', labels: { team: 'red' }, lastActivity: base + 1000 });
    expect(rows[0]).toMatchObject({ headSeq: 0, events: 1, tier: 'hot', watchers: 0 });
  });

  it('filters by label and prefix and stops at --limit', async () => {
    const ids = async (args: string[]): Promise<string[]> => {
      const result = await runCliHere(['sessions', '--json', ...args, '--url', hub.url]);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as { sessionId: string }).sessionId);
    };
    expect(await ids(['--label', 'team=red'])).toEqual(['globex/mid', 'acme/old']);
    expect(await ids(['--label', 'team=red', '--label', 'env'])).toEqual(['globex/mid']);
    expect(await ids(['--prefix', 'acme/'])).toEqual(['acme/new', 'acme/old']);
    expect(await ids(['--limit', '2'])).toEqual(['acme/new', 'globex/mid']);
    expect(await ids(['--label', 'team=blue'])).toEqual([]);
  });

  it('prints a table, and refuses a bad --limit or --label (usage, exit 2; the hub, exit 1)', async () => {
    const table = await runCli(['sessions', '--url', hub.url]);
    expect(table.code, table.stderr).toBe(0);
    const [heading, ...lines] = table.stdout.trim().split('\n');
    expect(heading).toMatch(/^SESSION +HEAD +EVENTS +LAST ACTIVITY \(UTC\) +WATCHERS +TITLE +LABELS$/);
    expect(lines[2]).toMatch(/^acme\/old .*2023-11-14T22:13:21 .* The old one {2}team=red$/);
    expect((await runCliHere(['sessions', '--limit', '0', '--url', hub.url])).code).toBe(2);
    const badLabel = await runCliHere(['sessions', '--label', 'no spaces', '--url', hub.url]);
    expect(badLabel.code).toBe(1);
    expect(badLabel.stderr).toContain('BAD_REQUEST');
  });
});
