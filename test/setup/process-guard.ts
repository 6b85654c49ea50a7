import { afterAll, afterEach } from 'vitest';
import { describeThrown, reportIncident, takeIncidents } from '../helpers/process-incidents.ts';

/**
 * The suite-wide guard (vitest `setupFiles`): a test during which the worker saw an unhandled rejection or an
 * uncaught exception, or a child process the test started crashed (see test/helpers/child-watch.ts), fails, naming
 * what happened. Incidents during `beforeAll`/`afterAll` fail the file's last check.
 */
const installed = Symbol.for('session-hub.test.processGuardInstalled');
const holder = globalThis as { [installed]?: true };
if (holder[installed] !== true) {
  holder[installed] = true;
  process.on('unhandledRejection', (reason) => reportIncident(`unhandled rejection: ${describeThrown(reason)}`));
  process.on('uncaughtException', (error) => reportIncident(`uncaught exception: ${describeThrown(error)}`));
}

function check(): void {
  const found = takeIncidents();
  if (found.length > 0) {
    throw new Error(`process guard: ${found.length} incident(s) during this test:\n${found.join('\n---\n')}`);
  }
}

afterEach(check);
afterAll(check);
