import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Env that leaves auth and limits to the test's own arguments (the runner's environment may set them). */
const neutralEnv: Record<string, string> = {
  AUTH_SECRET: '',
  AUTH_PUBLIC_KEY_FILE: '',
  AUTH_JWKS_FILE: '',
  REQUIRE_AUTH: '',
};

function spawnServe(args: readonly string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'silent', ...neutralEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A `session-hub serve` child process, once it printed its auth line (the last line of its start). */
export interface Served {
  readonly url: string;
  readonly wsUrl: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

export function serve(args: readonly string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawnServe(args, env);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+) \(WebSocket (ws:\/\/\S+)\)/.exec(stdout);
      if (match === null || !/^auth: .*$/m.test(stdout)) return;
      resolve({
        url: match[1]!,
        wsUrl: match[2]!,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`session-hub exited with ${String(code)}:\n${stdout}\n${stderr}`)));
  });
}

/** Run `session-hub serve` to its exit (for start-up failures). */
export function serveToExit(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnServe(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

export interface RawReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An HTTP request with any headers, `Host` included (fetch would not send a forged one). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The `error.code` and `error.details.reason` of a JSON error reply. */
export function errorOf(reply: RawReply): { code: string; reason: unknown } {
  const parsed = JSON.parse(reply.body) as { error: { code: string; details?: { reason?: unknown } } };
  return { code: parsed.error.code, reason: parsed.error.details?.reason };
}
