import { describe, expect, it } from 'vitest';
import { hostPolicy, parseHostHeader } from '../../server/http/host-policy.ts';

describe('the Host rule of an open hub', () => {
  it('parses host[:port] values, IPv6 in brackets, and refuses what is not one', () => {
    expect(parseHostHeader('LocalHost:8080')).toEqual({ hostname: 'localhost', port: '8080' });
    expect(parseHostHeader('[::1]:80')).toEqual({ hostname: '[::1]', port: '80' });
    expect(parseHostHeader('localhost.')).toEqual({ hostname: 'localhost', port: '' });
    for (const bad of ['', 'a b', 'user@host', 'host/path', '::1', 'host:port', 'host:123456']) {
      expect(parseHostHeader(bad), bad).toBeUndefined();
    }
  });

  it('answers loopback names and listed ones only; with auth, every Host', () => {
    const open = hostPolicy(['hub.internal', '10.0.0.5:8080'], false);
    for (const host of ['localhost', 'LOCALHOST:1', '127.0.0.1:8080', '[::1]:9', 'hub.internal:443', '10.0.0.5:8080']) {
      expect(open(host), host).toBe(true);
    }
    for (const host of ['rebind.evil.example', 'localhost.evil.example', '10.0.0.5:8081', '127.0.0.2', 'a b']) {
      expect(open(host), host).toBe(false);
    }
    expect(open(undefined)).toBe(true);
    expect(hostPolicy(undefined, true)('rebind.evil.example')).toBe(true);
    expect(() => hostPolicy(['not a host'], false)).toThrow(/not a host/);
  });
});
