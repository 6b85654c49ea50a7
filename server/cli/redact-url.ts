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
