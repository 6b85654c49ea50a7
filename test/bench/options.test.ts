import { describe, expect, it } from 'vitest';
import { parseBenchOptions, selects } from '../../bench/options.ts';

describe('bench options', () => {
  it('defaults to the full run of every scenario', () => {
    const options = parseBenchOptions([]);
    expect(options).toEqual({ quick: false, only: [], profile: false });
    expect(selects(options, 'fanout')).toBe(true);
  });

  it('parses --quick, --profile and --only in both spellings', () => {
    const options = parseBenchOptions(['--quick', '--only', 'append,catchup', '--only=memory', '--profile']);
    expect(options).toEqual({ quick: true, only: ['append', 'catchup', 'memory'], profile: true });
    expect(selects(options, 'append')).toBe(true);
    expect(selects(options, 'fanout')).toBe(false);
  });

  it('rejects unknown scenarios and options with the usage line', () => {
    expect(() => parseBenchOptions(['--only', 'nope'])).toThrow(/unknown scenario "nope".*\nusage:/s);
    expect(() => parseBenchOptions(['--fast'])).toThrow(/unknown option "--fast"/);
    expect(() => parseBenchOptions(['--only'])).toThrow(/needs a scenario/);
  });
});
