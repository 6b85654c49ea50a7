/**
 * `node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top N]`: where the time of a hub CPU profile
 * (from `npm run bench -- --profile`, written to bench/results/profiles/) goes, by file and by function.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatProfileSummary, summarizeProfile, type CpuProfile } from './profile.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
const files = args.filter((arg, index) => arg !== '--top' && index !== topIndex + 1);
if (files.length === 0) {
  process.stderr.write('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top N]\n');
  process.exit(2);
}
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`== ${file}\n${formatProfileSummary(summarizeProfile(profile, root), top)}\n\n`);
}
