import { describe, expect, it } from 'vitest';
import { AppendFences, MAX_FENCED_KEYS_PER_SESSION, MAX_FENCED_SESSIONS } from '../../server/append/fence.ts';
import { HubError } from '../../server/hub-error.ts';
import { thrown } from '../helpers/thrown.ts';

const outage = new HubError('STORE_UNAVAILABLE', 'down');
const fencedCode = (run: () => void): unknown => (thrown(run) as HubError | undefined)?.code;

describe('AppendFences (per connection)', () => {
  it('refuses an append sent behind a failed one until that one is re-sent; others pass', () => {
    const fences = new AppendFences();
    fences.failed('s', 'k1', outage);
    expect(fencedCode(() => fences.admit('s', 'k2', 'k1'))).toBe('APPEND_FENCED');
    expect(fencedCode(() => fences.admit('other', 'k2', 'k1'))).toBeUndefined();
    expect(fencedCode(() => fences.admit('s', 'k3', undefined))).toBeUndefined();
    fences.admit('s', 'k1', undefined); // the re-send
    expect(fencedCode(() => fences.admit('s', 'k2', 'k1'))).toBeUndefined();
  });

  it('only fences after retry-later codes', () => {
    const fences = new AppendFences();
    fences.failed('s', 'bad', new HubError('INVALID_EVENT', 'no'));
    expect(fencedCode(() => fences.admit('s', 'x', 'bad'))).toBeUndefined();
    fences.failed('s', 'limited', new HubError('RATE_LIMITED', 'slow down'));
    expect(fencedCode(() => fences.admit('s', 'y', 'limited'))).toBe('APPEND_FENCED');
  });

  it('remembers nothing of a failed append without a key: however many, they push no session’s keys out', () => {
    const fences = new AppendFences();
    fences.failed('kept', 'k1', outage);
    // Were unkeyed failures remembered, these sessions would fill the connection's bound and evict `kept`.
    for (let n = 0; n <= MAX_FENCED_SESSIONS; n++) fences.failed(`unkeyed-${n}`, undefined, outage);
    expect(fencedCode(() => fences.admit('kept', 'k2', 'k1'))).toBe('APPEND_FENCED');
  });

  it('keeps a session’s failed keys however many other sessions fail on the connection', () => {
    const fences = new AppendFences();
    fences.failed('s1', 'a32', outage);
    for (let n = 0; n < 3 * MAX_FENCED_KEYS_PER_SESSION; n++) fences.failed(`s${2 + (n % 39)}`, `k${n}`, outage);
    expect(fencedCode(() => fences.admit('s1', 'a33', 'a32'))).toBe('APPEND_FENCED');
  });
});
