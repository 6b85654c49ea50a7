import { describe, expect, it } from 'vitest';
import {
  atLeast,
  atMost,
  formatMarkdownTable,
  formatNumber,
  formatTable,
  ratio,
  type Row,
} from '../../bench/report.ts';

const row: Row = {
  scenario: 'append',
  metric: 'events/s',
  unit: '/s',
  hub: 60_000,
  baselineName: 'XADD',
  baseline: 100_000,
  target: '≥ 50% of XADD',
  met: true,
};

describe('bench report', () => {
  it('computes hub/baseline ratios and leaves missing figures blank', () => {
    expect(ratio(row)).toBeCloseTo(0.6);
    expect(ratio({ ...row, hub: null })).toBeNull();
    expect(ratio({ ...row, baseline: 0 })).toBeNull();
  });

  it('judges targets only when the figure exists', () => {
    expect(atLeast(5, 4)).toBe(true);
    expect(atLeast(3, 4)).toBe(false);
    expect(atLeast(null, 4)).toBeNull();
    expect(atMost(5, 5)).toBe(true);
    expect(atMost(6, 5)).toBe(false);
    expect(atMost(1, null)).toBeNull();
  });

  it('formats numbers with separators and three significant digits', () => {
    expect(formatNumber(123_456.7)).toBe('123,457');
    expect(formatNumber(123.4)).toBe('123');
    expect(formatNumber(12.34)).toBe('12.3');
    expect(formatNumber(1.234)).toBe('1.23');
    expect(formatNumber(0.01234)).toBe('0.012');
    expect(formatNumber(null)).toBe('—');
  });

  it('prints one aligned table with every column, and the same rows as Markdown', () => {
    const text = formatTable([row, { ...row, scenario: 'fan-out', hub: null, met: null }]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^scenario\s+metric\s+hub\s+baseline\s+baseline value\s+ratio\s+target\s+met\?$/);
    expect(lines[2]).toContain('60,000 /s');
    expect(lines[2]).toContain('0.60×');
    expect(lines[2]).toMatch(/yes$/);
    expect(lines[3]).toContain('—');
    expect(lines[2]!.indexOf('XADD')).toBe(lines[3]!.indexOf('XADD'));
    const markdown = formatMarkdownTable([row]).split('\n');
    expect(markdown).toHaveLength(3);
    expect(markdown[2]).toBe('| append | events/s | 60,000 /s | XADD | 100,000 /s | 0.60× | ≥ 50% of XADD | yes |');
  });
});
