import { readFile } from 'node:fs/promises';
import type { AuthConfig, AuthKeySource } from './auth-config.ts';
import { createAuthenticator, openAuthenticator, type Authenticator } from './authenticator.ts';
import { jwksKey, KeyConfigError, publicKeyFromPem, secretKey, type VerificationKey } from './verification-key.ts';

export type ReadTextFile = (path: string) => Promise<string>;

const readUtf8: ReadTextFile = (path) => readFile(path, 'utf8');

/** Build the verification key of a key source, reading its file. Throws `KeyConfigError` with the file named. */
export async function loadVerificationKey(
  source: AuthKeySource,
  read: ReadTextFile = readUtf8,
): Promise<VerificationKey> {
  if (source.kind === 'secret') return secretKey(source.secret);
  let text: string;
  try {
    text = await read(source.file);
  } catch (error) {
    throw new KeyConfigError(`cannot read ${source.kind} file ${source.file}`, { cause: error });
  }
  if (source.kind === 'public-key') return publicKeyFromPem(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new KeyConfigError(`JWKS file ${source.file} is not JSON`, { cause: error });
  }
  return jwksKey(json);
}

/** The hub's authenticator for a resolved config (open mode, or JWT with the configured key). */
export async function loadAuthenticator(config: AuthConfig, read: ReadTextFile = readUtf8): Promise<Authenticator> {
  if (config.mode === 'open') return openAuthenticator();
  return createAuthenticator({
    key: await loadVerificationKey(config.key, read),
    issuer: config.issuer,
    audience: config.audience,
  });
}
