import type { HarnessChoice } from './archive-harness.ts';
import { openFileHarness } from './file-harness.ts';

/** Every archive backend the contract suite runs against. */
export function harnessChoices(): HarnessChoice[] {
  return [{ name: 'file', open: openFileHarness }];
}
