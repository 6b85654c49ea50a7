import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const docsPath = new URL('../../docs/operations.md', import.meta.url);

/** The metric names of the docs/operations.md table (`name{labels}` or `a` / `b` in the first column). */
function documentedMetrics(markdown: string): string[] {
  const section = markdown.slice(
    markdown.indexOf('## Metrics'),
    markdown.indexOf('\n## ', markdown.indexOf('## Metrics') + 1),
  );
  const rows = section.split('\n').filter((line) => /^\| `/.test(line));
  return rows.flatMap((row) =>
    [...row.split('|')[1]!.matchAll(/`([a-z_]+)(?:\{[^}]*\})?`/g)].map((match) => match[1]!),
  );
}

describe('docs/operations.md lists the metrics /metrics shows', () => {
  const store = new MemoryStore();
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startHub({ store });
  });
  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  it('every session_hub_ family is in the table and every row is served, with its type', async () => {
    const text = await (await fetch(`${hub.url}/metrics`)).text();
    const served = new Map(
      [...text.matchAll(/^# TYPE session_hub_(\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!] as const),
    );
    const markdown = await readFile(docsPath, 'utf8');
    const documented = documentedMetrics(markdown);
    expect(documented.length).toBeGreaterThan(10);
    expect([...served.keys()].sort()).toEqual([...documented].sort());
    const rowOf = (name: string): string[] =>
      markdown
        .split('\n')
        .find((line) => line.startsWith('| `') && line.split('|')[1]!.includes(`\`${name}`))!
        .split('|');
    for (const [name, type] of served) expect([name, rowOf(name)[2]!.trim()]).toEqual([name, type]);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).not.toMatch(/node="/);
  });
});
