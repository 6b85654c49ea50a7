/** The prefix of every environment variable the hub and the CLI read. */
export const ENV_PREFIX = 'SESSION_HUB_';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The environment as the option parsers read it: each setting's canonical name is `SESSION_HUB_<NAME>`
 * (`SESSION_HUB_PORT`, `SESSION_HUB_REDIS_URL`, `SESSION_HUB_AUTH_SECRET`, ...); the bare `<NAME>` (`PORT`,
 * `REDIS_URL`, `AUTH_SECRET`, ...) stays an alias that the prefixed name overrides. The parsers look up the bare
 * names in the returned view, so this is the one place where the prefix is applied. An empty value counts as unset.
 */
export function hubEnv(env: Env): Env {
  const view: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || name.length === ENV_PREFIX.length) continue;
    if (value === undefined || value === '') continue;
    view[name.slice(ENV_PREFIX.length)] = value;
  }
  return view;
}
