import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/** Why an event breaks the size limits, or undefined when it fits. */
export type EventSizeProblem =
  { readonly kind: 'too-large'; readonly maxBytes: number } | { readonly kind: 'too-deep'; readonly maxDepth: number };

/**
 * Check one event (as decoded from the wire) against `maxEventBytes` (size of its JSON encoding, counted in UTF-8
 * bytes) and `maxEventDepth`, without recursion and stopping as soon as a limit is passed — so a hostile payload
 * (huge, or nested 100,000 deep) costs at most the limit to reject, and never overflows the stack.
 * Values JSON cannot hold count as `null`; the shared core rejects them afterwards with INVALID_JSON.
 */
export function checkEventSize(
  event: unknown,
  limits: { readonly maxEventBytes: number; readonly maxEventDepth: number },
): EventSizeProblem | undefined {
  const measured = measureEvent(event, limits);
  return typeof measured === 'number' ? undefined : measured;
}

/** The size of `event`'s JSON encoding in UTF-8 bytes, or the limit it breaks (see `checkEventSize`). */
function measureEvent(
  event: unknown,
  limits: { readonly maxEventBytes: number; readonly maxEventDepth: number },
): number | EventSizeProblem {
  const stack: { readonly value: unknown; readonly depth: number }[] = [{ value: event, depth: 0 }];
  let bytes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') bytes += utf8Length(value) + 2;
    else if (typeof value === 'number') bytes += String(value).length;
    else if (typeof value === 'boolean') bytes += value ? 4 : 5;
    else if (typeof value !== 'object' || value === null) bytes += 4;
    else {
      if (depth + 1 > limits.maxEventDepth) return { kind: 'too-deep', maxDepth: limits.maxEventDepth };
      if (Array.isArray(value)) {
        bytes += 2 + Math.max(0, value.length - 1);
        for (let index = value.length - 1; index >= 0 && bytes <= limits.maxEventBytes; index--) {
          stack.push({ value: value[index], depth: depth + 1 });
        }
      } else {
        const keys = Object.keys(value);
        bytes += 2 + Math.max(0, keys.length - 1);
        for (const key of keys) {
          if (bytes > limits.maxEventBytes) break;
          bytes += utf8Length(key) + 3;
          stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
        }
      }
    }
    if (bytes > limits.maxEventBytes) return { kind: 'too-large', maxBytes: limits.maxEventBytes };
  }
  return bytes;
}

/** UTF-8 byte length of a string (a lone surrogate counts 3, as the replacement character it would become). */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Check an append's drafts before anything else looks at them (socket and HTTP): each must fit `maxEventBytes`
 * and `maxEventDepth`. Throws EVENT_TOO_LARGE with `details.index` naming the first offender; else returns the
 * drafts' total JSON size in bytes.
 */
export function assertDraftSizes(
  drafts: readonly unknown[],
  limits: { readonly maxEventBytes: number; readonly maxEventDepth: number },
): number {
  let total = 0;
  drafts.forEach((draft, index) => {
    const problem = measureEvent(draft, limits);
    if (typeof problem === 'number') {
      total += problem;
      return;
    }
    const message =
      problem.kind === 'too-large'
        ? `events[${index}] is larger than ${problem.maxBytes} bytes`
        : `events[${index}] is nested deeper than ${problem.maxDepth} levels`;
    const limit = problem.kind === 'too-large' ? problem.maxBytes : problem.maxDepth;
    throw new HubError(HubErrorCode.EVENT_TOO_LARGE, message, { index, limit, reason: problem.kind });
  });
  return total;
}
