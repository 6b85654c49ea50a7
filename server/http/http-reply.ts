import type { ServerResponse } from 'node:http';

/** What a route answers: the hub's HTTP handler writes it (status, headers, then the body or `write`). */
export interface HttpReply {
  readonly status: number;
  /** JSON-encoded unless a string; ignored when `write` is given. */
  readonly body: unknown;
  /** Stream the body instead (after the head is written): resolves once it is done or the client is gone. */
  readonly write?: (response: ServerResponse) => Promise<void>;
  readonly contentType?: string;
  /** More response headers (e.g. `allow` on a 405). */
  readonly headers?: Readonly<Record<string, string>>;
}
