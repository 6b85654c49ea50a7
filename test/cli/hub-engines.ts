import { test } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';

/** Starts a hub process on the file's engine; each one started is terminated after the file's last test. */
export type StartHubProcess = (args?: readonly string[], env?: Record<string, string>) => Promise<HubProcess>;

let prefixes = 0;

/** `startHubProcess` on the engine `engineArgs()` gives (called once per hub), stopping what it started. */
function hubStarter(engineArgs: () => readonly string[], onCleanup: (stop: () => Promise<void>) => void) {
  const started: HubProcess[] = [];
  onCleanup(async () => {
    await Promise.all(started.map((hub) => hub.terminate()));
  });
  const start: StartHubProcess = async (args = [], env = {}) => {
    const hub = await HubProcess.start([...engineArgs(), ...args], env);
    started.push(hub);
    return hub;
  };
  return start;
}

/**
 * How a CLI suite starts hub processes, one extension of test/helpers/fixtures.ts per engine (for `describe.each`):
 * `startHubProcess` on the memory engine, or on the file's Redis (each hub its own key prefix, so hubs do not share
 * logs).
 */
export const hubEngines = [
  {
    name: 'memory',
    // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture depends on from this pattern: nothing
    it: test.extend('startHubProcess', { scope: 'file' }, ({}, { onCleanup }) => hubStarter(() => [], onCleanup)),
  },
  {
    name: 'redis',
    it: test.extend('startHubProcess', { scope: 'file' }, ({ redis }, { onCleanup }) =>
      hubStarter(() => ['--redis', redis.url, '--key-prefix', `cli${++prefixes}:`], onCleanup),
    ),
  },
] as const;
