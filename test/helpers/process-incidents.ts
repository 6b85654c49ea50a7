/**
 * Incidents that must fail the test during which they happened: an unhandled rejection or uncaught exception in the
 * vitest worker, or a child process a test started that crashed or exited on its own. Recorded here (one list per
 * worker, kept on `globalThis` so every module instance shares it) and checked after each test by
 * test/setup/process-guard.ts.
 */
const key = Symbol.for('session-hub.test.processIncidents');
type Holder = { [key]?: string[] };

function incidents(): string[] {
  const holder = globalThis as Holder;
  holder[key] ??= [];
  return holder[key];
}

/** Record an incident; the current test (or, outside a test, the file's next hook check) fails with it. */
export function reportIncident(description: string): void {
  incidents().push(description);
}

/** The incidents recorded since the last call (and forget them). */
export function takeIncidents(): string[] {
  return incidents().splice(0);
}

/** A one-line description of a thrown value, with its stack when it has one. */
export function describeThrown(value: unknown): string {
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  return String(value);
}
