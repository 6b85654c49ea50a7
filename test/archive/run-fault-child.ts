// A child process for test/archive/archive-faults.test.ts and restore-faults.test.ts: runs one archive run
// (server/archive/archive-run.ts) or one restore (restore-run.ts) of a session and kills itself with SIGKILL the
// `nth` time it reaches `step`, as a crash of the node there would. Its lease lasts `leaseMs`, so the run that
// resumes after it waits for no longer than that.
//   node run-fault-child.ts <redis-url> <key-prefix> <archive-location> <session-id> <step> <nth> <lease-ms> [restore]
import { archiveBackendFor } from '../../server/archive/archive-location.ts';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { restoreSession } from '../../server/archive/restore-run.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';

const [url, keyPrefix, location, sessionId, step, nth, leaseMs, operation] = process.argv.slice(2);
if (leaseMs === undefined || url === undefined || keyPrefix === undefined || location === undefined) {
  process.stderr.write(
    'usage: run-fault-child.ts <redis-url> <key-prefix> <archive> <session> <step> <nth> <lease-ms> [restore]\n',
  );
  process.exit(2);
}
const store = await RedisStore.open({ url, keyPrefix });
const archive = archiveBackendFor(location);
await archive.open();
let seen = 0;
const run = {
  store,
  archive,
  sessionId: sessionId ?? '',
  token: `child-${process.pid}`,
  leaseMs: Number(leaseMs),
  onStep: (reached: string) => {
    if (reached === step && ++seen === Number(nth)) process.kill(process.pid, 'SIGKILL');
  },
};
const result =
  operation === 'restore'
    ? await restoreSession({ ...run, pageEvents: 25 })
    : await archiveSession({ ...run, segmentEvents: 25 });
await archive.close();
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
