import type { IncomingMessage } from 'node:http';
import { decodeFrame, HubErrorCode } from '../shared/index.ts';
import { HubError } from './hub-error.ts';

/** Read a request body of at most `maxBytes` (FRAME_TOO_LARGE beyond) and decode it (JSON, or msgpack by type). */
export async function readBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const type = request.headers['content-type'] ?? 'application/json';
  if (/msgpack/i.test(type)) return decodeFrame(body);
  if (!/json/i.test(type)) {
    throw new HubError(HubErrorCode.BAD_REQUEST, `unsupported content type ${type} (use application/json)`);
  }
  return decodeFrame(body.toString('utf8'));
}

function tooLarge(maxBytes: number): HubError {
  return new HubError(HubErrorCode.FRAME_TOO_LARGE, `the body is larger than ${maxBytes} bytes`, { limit: maxBytes });
}
