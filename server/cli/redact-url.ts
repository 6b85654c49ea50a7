/**
 * A URL fit for a terminal or a log: its password (in the userinfo, or a `password` query parameter, which ioredis
 * also reads) replaced by `***`. The user name is kept: it is not a secret and helps to tell deployments apart.
 * Text that does not parse as a URL loses everything up to its last `@` (where a password would be).
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text.replace(/^.*@/s, '***@');
  }
  if (url.password !== '') url.password = '***';
  if (url.searchParams.has('password')) url.searchParams.set('password', '***');
  return url.toString();
}

/** What a URL text holds that must never be shown: its password and its whole userinfo, parsable or not. */
function urlSecrets(text: string): string[] {
  const secrets = new Set<string>();
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/(.*)@/is.exec(text)?.[1];
  if (userinfo !== undefined && userinfo !== '') {
    secrets.add(userinfo);
    const colon = userinfo.indexOf(':');
    if (colon >= 0 && colon < userinfo.length - 1) secrets.add(userinfo.slice(colon + 1));
  }
  try {
    const url = new URL(text);
    if (url.password !== '') {
      secrets.add(url.password);
      secrets.add(decodeURIComponentSafe(url.password));
    }
    const parameter = url.searchParams.get('password');
    if (parameter !== null && parameter !== '') secrets.add(parameter);
  } catch {
    // not a URL: the userinfo above is all there is to hide
  }
  // Longest first, so that a password inside the userinfo does not leave the rest of the userinfo behind.
  return [...secrets].sort((a, b) => b.length - a.length);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `text` with every secret of `urlText` (see `redactUrl`) replaced by `***`. */
export function redactSecrets(text: string, urlText: string): string {
  if (urlText === '') return text;
  let redacted = text.split(urlText).join(redactUrl(urlText));
  for (const secret of urlSecrets(urlText)) redacted = redacted.split(secret).join('***');
  return redacted;
}

/** An error as a log may show it: type, message, code, stack and causes, with the secrets of `urlText` removed. */
export interface RedactedError {
  readonly type: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
  readonly cause?: RedactedError;
}

/**
 * `error` fit for a log line when it may carry `urlText` (a Redis URL with a password): a plain object of its
 * name, message, code and stack, and of its causes (a few levels), each redacted. Every other property is left
 * out: a URL `TypeError` holds the whole text it could not parse in `input`.
 */
export function redactError(error: unknown, urlText: string, depth = 0): RedactedError {
  if (!(error instanceof Error)) return { type: typeof error, message: redactSecrets(String(error), urlText) };
  const code = 'code' in error && typeof error.code === 'string' ? { code: error.code } : {};
  const stack = error.stack === undefined ? {} : { stack: redactSecrets(error.stack, urlText) };
  const cause = error.cause === undefined || depth >= 4 ? {} : { cause: redactError(error.cause, urlText, depth + 1) };
  return { type: error.name, message: redactSecrets(error.message, urlText), ...code, ...stack, ...cause };
}

/** Why a Redis URL cannot be used, without repeating it (it may hold a password), or undefined when it parses. */
export function redisUrlProblem(urlText: string): string | undefined {
  try {
    new URL(urlText);
    return undefined;
  } catch {
    return (
      `the Redis URL (${redactUrl(urlText)}) is not a valid URL: expected redis://[user:password@]host:port[/db]; ` +
      'percent-encode the password if it holds characters such as @ : / # ? % or spaces (e.g. # as %23)'
    );
  }
}
