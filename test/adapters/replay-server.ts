// A local HTTP server standing in for a model provider: it answers each request with the next queued SSE body
// (built from the providers' documented event formats, see sse-bodies.ts) and records the requests' JSON bodies.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReplayResponse {
  /** The SSE body. */
  readonly body: string;
  /** Keep the response open after the body (until the client goes away): a stream the client aborts. */
  readonly hold?: boolean;
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The JSON bodies of the requests so far, in order. */
  readonly requests: unknown[];
  /** Queue the answer to the next request. */
  respond(response: ReplayResponse): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const queue: ReplayResponse[] = [];
  const requests: unknown[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        requests.push(body);
        const next = queue.shift();
        if (next === undefined) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'no response queued', type: 'test_error' } }));
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        response.write(next.body);
        if (next.hold === true) request.socket.once('close', () => response.end());
        else response.end();
      },
      () => {
        response.writeHead(400);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: (response) => void queue.push(response),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
