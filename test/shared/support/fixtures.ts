import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DerivedMessage } from '../../../shared/index.ts';

const fixturesDir = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export const FIXTURE_NAMES = ['seed-example', 'calculator-turn', 'replace-and-prune'] as const;
export type FixtureName = (typeof FIXTURE_NAMES)[number];

/** The raw JSONL text of a fixture log (test/fixtures/<name>.jsonl). */
export function fixtureLog(name: FixtureName): string {
  return readFileSync(`${fixturesDir}${name}.jsonl`, 'utf8');
}

/** The messages the fixture log must derive. */
export function fixtureMessages(name: FixtureName): DerivedMessage[] {
  return JSON.parse(readFileSync(`${fixturesDir}${name}.messages.json`, 'utf8')) as DerivedMessage[];
}
