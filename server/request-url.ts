import type { IncomingMessage } from 'node:http';

/**
 * The URL of a request, or undefined when its target cannot be parsed. Never throws: the target is whatever the
 * peer sent (`GET //[ HTTP/1.1` is a valid request line). An origin-form target (`/path?query`) is appended to a
 * fixed base rather than resolved against it, so `//host/path` stays a path instead of naming a host; an
 * absolute-form target (`http://host/path`, as proxies send) is parsed as it is.
 */
export function requestUrl(request: Pick<IncomingMessage, 'url'>): URL | undefined {
  return parseRequestTarget(request.url ?? '/');
}

/** `requestUrl` for a bare request target. */
export function parseRequestTarget(target: string): URL | undefined {
  try {
    return target.startsWith('/') ? new URL(`http://hub${target}`) : new URL(target);
  } catch {
    return undefined;
  }
}
