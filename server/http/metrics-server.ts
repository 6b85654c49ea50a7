import { createServer, type Server } from 'node:http';
import type { HubMetrics } from '../metrics.ts';
import type { HttpReply } from './http-reply.ts';

/** The Prometheus text of a node's metrics as an HTTP reply. */
export async function metricsReply(metrics: HubMetrics): Promise<HttpReply> {
  return { status: 200, body: await metrics.registry.metrics(), contentType: metrics.registry.contentType };
}

/**
 * The listener of `--metrics-port`: `GET /metrics` (and `HEAD`) without a token, nothing else. For a hub with
 * auth, whose main port serves `/metrics` only to an admin token: bind it to an interface only the scraper can
 * reach (`--metrics-host`).
 */
export function createMetricsServer(metrics: HubMetrics): Server {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const method = request.method ?? 'GET';
    if (path !== '/metrics' || (method !== 'GET' && method !== 'HEAD')) {
      response.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(path === '/metrics' ? 'use GET\n' : 'only /metrics here\n');
      return;
    }
    metricsReply(metrics)
      .then((reply) => {
        response.writeHead(reply.status, {
          'content-type': reply.contentType ?? 'text/plain',
          'cache-control': 'no-store',
        });
        response.end(String(reply.body));
      })
      .catch(() => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('could not collect the metrics\n');
      });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return server;
}
