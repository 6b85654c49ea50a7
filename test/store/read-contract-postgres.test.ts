// The read contract across every read path, with the PostgreSQL archive on a database of its own (created and
// dropped by the harness): fewer runs than the file archive's, the paths above the archive being the same.
import { openPostgresHarness } from '../archive/postgres-harness.ts';
import { describeReadContract } from './support/read-contract-suite.ts';

describeReadContract('PostgreSQL', openPostgresHarness, 10);
