import type { IncomingMessage } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import { decodeFrame } from '../../shared/codec.ts';
import { HubError } from '../hub-error.ts';

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
  return bodyFormat(request.headers['content-type']) === 'msgpack'
    ? decodeFrame(body)
    : decodeFrame(body.toString('utf8'));
}

/**
 * The body's format from its media type (parameters such as `charset` aside): `application/json` or
 * `application/msgpack` (also `application/x-msgpack`, `application/vnd.msgpack`). Anything else, a missing type
 * included, is UNSUPPORTED_MEDIA_TYPE (415): a browser may send `text/plain`, form types or no type at all across
 * origins without a preflight, and such a request must never be read as an append.
 */
function bodyFormat(contentType: string | undefined): 'json' | 'msgpack' {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/json') return 'json';
  if (MSGPACK_TYPES.has(mediaType)) return 'msgpack';
  const shown = contentType === undefined ? 'no content type' : `content type ${JSON.stringify(contentType)}`;
  throw new HubError(HubErrorCode.UNSUPPORTED_MEDIA_TYPE, `${shown}: send application/json or application/msgpack`);
}

const MSGPACK_TYPES: ReadonlySet<string> = new Set([
  'application/msgpack',
  'application/x-msgpack',
  'application/vnd.msgpack',
]);

function tooLarge(maxBytes: number): HubError {
  return new HubError(HubErrorCode.FRAME_TOO_LARGE, `the body is larger than ${maxBytes} bytes`, { limit: maxBytes });
}
