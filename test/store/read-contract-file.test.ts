// The read contract across every read path, with the file archive (test/store/support/read-contract-suite.ts):
// random logs and operations, then every reader must end with the model's events and their derived messages.
import { openFileHarness } from '../archive/file-harness.ts';
import { describeReadContract } from './support/read-contract-suite.ts';

describeReadContract('file', openFileHarness, 40);
