import { describe, expect, it } from 'vitest';
import { RETRY_LATER_CODES } from '../../shared/retry-codes.ts';
import { CliFailure } from '../../server/cli/command.ts';
import { HubRequestError } from '../../server/cli/hub-http.ts';
import { withRetries } from '../../server/cli/retry.ts';

/** A request that fails with `errors` in turn, then answers 'done'; counts its attempts. */
function failing(...errors: Error[]) {
  const request = async (): Promise<string> => {
    request.attempts += 1;
    const error = errors[request.attempts - 1];
    if (error !== undefined) throw error;
    return 'done';
  };
  request.attempts = 0;
  return request;
}

const hubError = (code: string) => new HubRequestError(503, code, 'not now');

describe("the CLI's retry of requests to a hub", () => {
  it("retries the SDK's retry-later codes and SHUTTING_DOWN, then answers", async () => {
    const request = failing(...[...RETRY_LATER_CODES, 'SHUTTING_DOWN'].map(hubError));
    await expect(withRetries(request, { unreachable: false })).resolves.toBe('done');
    expect(request.attempts).toBe(RETRY_LATER_CODES.size + 2);
  });

  it('does not retry a refusal; retries an unreachable hub only when asked to', async () => {
    const forbidden = failing(hubError('FORBIDDEN'));
    await expect(withRetries(forbidden, { unreachable: true })).rejects.toThrow('FORBIDDEN: not now');
    expect(forbidden.attempts).toBe(1);
    const unreachable = () => new CliFailure('cannot reach the hub');
    const once = failing(unreachable());
    await expect(withRetries(once, { unreachable: false })).rejects.toThrow('cannot reach the hub');
    expect(once.attempts).toBe(1);
    const again = failing(unreachable());
    await expect(withRetries(again, { unreachable: true })).resolves.toBe('done');
    expect(again.attempts).toBe(2);
  });
});
