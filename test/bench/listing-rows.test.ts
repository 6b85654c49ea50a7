import { describe, expect, it } from 'vitest';
import { listingRows } from '../../bench/scenarios/listing.ts';

describe('bench: the listing scenario rows', () => {
  it('compares the first page with the raw scan of the same run, target ≤ 3×', () => {
    const [met] = listingRows({ sessions: 10_000, pageMs: 290, scanMs: 100 });
    expect(met).toMatchObject({ scenario: 'session listing, 10,000 sessions', hub: 290, baseline: 100, met: true });
    const [missed] = listingRows({ sessions: 1000, pageMs: 310, scanMs: 100 });
    expect(missed?.met).toBe(false);
  });
});
