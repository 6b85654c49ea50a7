import { describe, expect, it } from 'vitest';
import { ALL_GRANTS, AuthError, can, canAll, parseGrants, patternMatches } from '../../server/auth/index.ts';

describe('grant patterns', () => {
  it('an exact id matches only itself', () => {
    expect(patternMatches('s-123', 's-123')).toBe(true);
    expect(patternMatches('s-123', 's-1234')).toBe(false);
    expect(patternMatches('s-123', 's-12')).toBe(false);
  });

  it('a tenant prefix matches every session under it, at any depth, and nothing else', () => {
    expect(patternMatches('acme/*', 'acme/s-1')).toBe(true);
    expect(patternMatches('acme/*', 'acme/team/s-2')).toBe(true);
    expect(patternMatches('acme/*', 'acme')).toBe(false);
    expect(patternMatches('acme/*', 'acme/')).toBe(false);
    expect(patternMatches('acme/*', 'acme-evil/s-1')).toBe(false);
    expect(patternMatches('acme/*', 'evil/acme/s-1')).toBe(false);
    expect(patternMatches('acme/team/*', 'acme/other/s-1')).toBe(false);
  });

  it('"*" matches every session', () => {
    expect(patternMatches('*', 'anything/at/all')).toBe(true);
  });
});

describe('can', () => {
  const grants = parseGrants({ read: ['acme/*', 's-123'], append: ['acme/agent-7'] });

  it('grants exactly what the claim lists, per action', () => {
    expect(can(grants, 'read', 'acme/s-1')).toBe(true);
    expect(can(grants, 'read', 's-123')).toBe(true);
    expect(can(grants, 'read', 'globex/s-1')).toBe(false);
    expect(can(grants, 'append', 'acme/agent-7')).toBe(true);
    expect(can(grants, 'append', 'acme/s-1')).toBe(false);
    expect(can(grants, 'admin', 'acme/s-1')).toBe(false);
  });

  it('append does not imply read', () => {
    const writer = parseGrants({ append: ['w-1'] });
    expect(can(writer, 'append', 'w-1')).toBe(true);
    expect(can(writer, 'read', 'w-1')).toBe(false);
  });

  it('admin: true covers every session for admin only; a pattern list scopes it', () => {
    const admin = parseGrants({ admin: true });
    expect(can(admin, 'admin', 'x/y')).toBe(true);
    expect(canAll(admin, 'admin')).toBe(true);
    expect(can(admin, 'read', 'x/y')).toBe(false);
    const tenantAdmin = parseGrants({ admin: ['acme/*'] });
    expect(can(tenantAdmin, 'admin', 'acme/s')).toBe(true);
    expect(can(tenantAdmin, 'admin', 'globex/s')).toBe(false);
    expect(canAll(tenantAdmin, 'admin')).toBe(false);
    expect(parseGrants({ admin: false }).admin).toEqual([]);
  });

  it('ALL_GRANTS allows everything', () => {
    for (const action of ['read', 'append', 'admin'] as const) expect(can(ALL_GRANTS, action, 'a/b')).toBe(true);
  });

  it('an empty claim grants nothing', () => {
    const none = parseGrants({});
    expect([can(none, 'read', 'a'), can(none, 'append', 'a'), can(none, 'admin', 'a')]).toEqual([false, false, false]);
  });
});

describe('parseGrants rejects malformed claims', () => {
  const malformed: [string, unknown][] = [
    ['not an object', 'read'],
    ['null', null],
    ['an array', [['read', '*']]],
    ['an unknown key (typo)', { reads: ['a'] }],
    ['a non-array list', { read: 'acme/*' }],
    ['a non-string pattern', { read: [42] }],
    ['an empty pattern', { read: [''] }],
    ['a glob in the middle', { read: ['acme/*/s'] }],
    ['a glob without slash', { read: ['acme*'] }],
    ['an empty prefix', { read: ['/*'] }],
    ['a double glob', { read: ['*/*'] }],
    ['a boolean read', { read: true }],
    ['an admin string', { admin: 'yes' }],
    ['a too long pattern', { read: ['x'.repeat(600)] }],
    ['too many patterns', { read: Array.from({ length: 1001 }, (_, i) => `s-${i}`) }],
  ];

  it.each(malformed)('%s', (_name, claim) => {
    const error = catchError(() => parseGrants(claim));
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', reason: 'bad-grants', claim: 'sh' });
  });
});

function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
