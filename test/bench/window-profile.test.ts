import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerProcess } from '../../bench/child/spawn.ts';
import { summarizeProfile, type CpuProfile } from '../../bench/profile.ts';

const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('server child process', () => {
  it('reports CPU and lag per window, and writes a CPU profile of exactly that window when asked', async () => {
    const server = await ServerProcess.start({
      entry: 'baseline-process.ts',
      config: { kind: 'ws-relay' },
      name: 'relay-profile',
      cpuProfileDir: dir,
    });
    try {
      expect(server.ports).toHaveLength(1);
      await server.mark();
      const sample = await server.sample();
      expect(sample.wallMs).toBeGreaterThan(0);
      expect(sample.rssBytes).toBeGreaterThan(0);
      expect(sample.profileFile).toBe(join(dir, 'relay-profile-1.cpuprofile'));
      const profile = JSON.parse(readFileSync(sample.profileFile!, 'utf8')) as CpuProfile;
      expect(summarizeProfile(profile, '/').totalMs).toBeGreaterThanOrEqual(0);
      expect(profile.nodes.length).toBeGreaterThan(0);
      await expect(server.sampleAfterGc()).rejects.toThrow(/expose-gc/);
    } finally {
      await server.stop();
    }
  });
});
