import { UsageError } from './cli-args.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Where the CLI finds the hub, and the token it presents. */
export interface HubTarget {
  /** The HTTP base, e.g. `http://127.0.0.1:8080` (no trailing slash). */
  readonly url: string;
  /** The WebSocket endpoint, e.g. `ws://127.0.0.1:8080/v1/ws`. */
  readonly wsUrl: string;
  readonly token: string | undefined;
}

export const DEFAULT_HUB_URL = 'http://127.0.0.1:8080';

const httpSchemes: Readonly<Record<string, string>> = {
  'http:': 'http:',
  'https:': 'https:',
  'ws:': 'http:',
  'wss:': 'https:',
};

/**
 * The hub from `--url` / `SESSION_HUB_URL` (http(s) or ws(s), with or without the `/v1/ws` path) and `--token` /
 * `SESSION_HUB_TOKEN` (flags win). Throws `UsageError` for a URL that is not one.
 */
export function hubTarget(values: { readonly url?: string; readonly token?: string }, env: Env): HubTarget {
  const text = values.url ?? nonEmpty(env['SESSION_HUB_URL']) ?? DEFAULT_HUB_URL;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new UsageError(`--url must be a URL such as ${DEFAULT_HUB_URL}, got ${JSON.stringify(text)}`);
  }
  const scheme = httpSchemes[parsed.protocol];
  if (scheme === undefined) throw new UsageError(`--url must be http(s) or ws(s), got ${parsed.protocol}`);
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/v1\/ws$/, '');
  const url = `${scheme}//${parsed.host}${path}`;
  const wsUrl = `${scheme === 'https:' ? 'wss:' : 'ws:'}//${parsed.host}${path}/v1/ws`;
  return { url, wsUrl, token: values.token ?? nonEmpty(env['SESSION_HUB_TOKEN']) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
