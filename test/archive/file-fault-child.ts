// A child process for test/archive/file-faults.test.ts: runs one write of the file archive and kills itself with
// SIGKILL the `nth` time the write reaches `step` (FileArchiveOptions.onStep), as a crash at that point would.
//   node file-fault-child.ts <dir> <append|rewrite|delete> <step> <nth>
import { FileArchive, type FileArchiveStep } from '../../server/archive/file/file-archive.ts';
import { faultOperation } from './file-fault-plan.ts';

const [dir, operation, step, nth] = process.argv.slice(2);
if (dir === undefined || operation === undefined || step === undefined || nth === undefined) {
  process.stderr.write('usage: file-fault-child.ts <dir> <operation> <step> <nth>\n');
  process.exit(2);
}
let seen = 0;
const backend = new FileArchive({
  dir,
  onStep: (reached: FileArchiveStep) => {
    if (reached === step && ++seen === Number(nth)) process.kill(process.pid, 'SIGKILL');
  },
});
await backend.open();
await faultOperation(backend, operation);
await backend.close();
process.stdout.write('done\n');
