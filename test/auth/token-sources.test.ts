import { describe, expect, it } from 'vitest';
import {
  AuthError,
  selectToken,
  tokenFromAuthorizationHeader,
  tokenFromMessage,
  tokenFromRequest,
  tokenFromUrl,
} from '../../server/auth/index.ts';
import { thrown } from '../helpers/thrown.ts';

describe('token extraction', () => {
  it('Authorization: Bearer, scheme case-insensitive; absent header is no token', () => {
    expect(tokenFromAuthorizationHeader('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(tokenFromAuthorizationHeader('bearer   abc ')).toBe('abc');
    expect(tokenFromAuthorizationHeader(undefined)).toBeUndefined();
  });

  it('another scheme, an empty bearer or two headers are refused, not ignored', () => {
    for (const value of ['Basic dXNlcjpwdw==', 'Bearer', 'Bearer a b', 'abc', ['Bearer a', 'Bearer b']]) {
      expect(thrown(() => tokenFromAuthorizationHeader(value))).toMatchObject({
        code: 'UNAUTHORIZED',
        reason: 'bad-auth-scheme',
      });
    }
  });

  it('?token= in a path or absolute URL; empty is absent; two are refused', () => {
    expect(tokenFromUrl('/v1/ws?token=abc.def')).toBe('abc.def');
    expect(tokenFromUrl('ws://h:1/v1/ws?x=1&token=t%2B1')).toBe('t+1');
    expect(tokenFromUrl('/v1/ws?token=')).toBeUndefined();
    expect(tokenFromUrl('/v1/ws')).toBeUndefined();
    expect(tokenFromUrl(undefined)).toBeUndefined();
    expect(thrown(() => tokenFromUrl('/v1/ws?token=a&token=b'))).toBeInstanceOf(AuthError);
  });

  it('hello/auth message token: absent is undefined, a non-string or empty is refused', () => {
    expect(tokenFromMessage({ token: 't' })).toBe('t');
    expect(tokenFromMessage({})).toBeUndefined();
    for (const token of [42, '', null, ['t']]) {
      expect(thrown(() => tokenFromMessage({ token }))).toMatchObject({ reason: 'malformed-token' });
    }
  });

  it('precedence: hello, then header, then query', () => {
    expect(selectToken({ hello: 'h', header: 'b', query: 'q' })).toBe('h');
    expect(selectToken({ header: 'b', query: 'q' })).toBe('b');
    expect(selectToken({ query: 'q' })).toBe('q');
    expect(selectToken({})).toBeUndefined();
    expect(tokenFromRequest({ url: '/x?token=q', headers: { authorization: 'Bearer b' } })).toBe('b');
    expect(tokenFromRequest({ url: '/x?token=q', headers: {} })).toBe('q');
  });

  it('a request with two Authorization headers is refused, though Node keeps only the first in `headers`', () => {
    const request = {
      headers: { authorization: 'Bearer a' },
      headersDistinct: { authorization: ['Bearer a', 'Basic dXNlcjpwdw=='] },
    };
    expect(thrown(() => tokenFromRequest(request))).toMatchObject({ reason: 'bad-auth-scheme' });
    expect(tokenFromRequest({ ...request, headersDistinct: { authorization: ['Bearer a'] } })).toBe('a');
  });
});
