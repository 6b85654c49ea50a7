// A child process for test/archive/restore-faults.test.ts: runs one restore (server/archive/restore-run.ts) of a
// session and kills itself with SIGKILL the `nth` time the restore reaches `step`, as a crash of the restoring node
// there would. Its lease lasts `leaseMs`, so the restore that resumes after it waits for no longer than that.
//   node restore-fault-child.ts <redis-url> <key-prefix> <archive-location> <session-id> <step> <nth> <lease-ms>
import { archiveBackendFor } from '../../server/archive/archive-location.ts';
import { restoreSession } from '../../server/archive/restore-run.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';

const [url, keyPrefix, location, sessionId, step, nth, leaseMs] = process.argv.slice(2);
if (leaseMs === undefined || url === undefined || keyPrefix === undefined || location === undefined) {
  process.stderr.write(
    'usage: restore-fault-child.ts <redis-url> <key-prefix> <archive> <session> <step> <nth> <lease-ms>\n',
  );
  process.exit(2);
}
const store = await RedisStore.open({ url, keyPrefix });
const archive = archiveBackendFor(location);
await archive.open();
let seen = 0;
const result = await restoreSession({
  store,
  archive,
  sessionId: sessionId ?? '',
  token: `child-${process.pid}`,
  leaseMs: Number(leaseMs),
  pageEvents: 25,
  onStep: (reached) => {
    if (reached === step && ++seen === Number(nth)) process.kill(process.pid, 'SIGKILL');
  },
});
await archive.close();
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
