import type { HarnessChoice } from './archive-harness.ts';
import { openFileHarness } from './file-harness.ts';
import { openPostgresHarness } from './postgres-harness.ts';

/** Every archive backend the contract suite runs against. */
export function harnessChoices(): HarnessChoice[] {
  return [
    { name: 'file', open: openFileHarness },
    { name: 'postgres', open: openPostgresHarness },
  ];
}
