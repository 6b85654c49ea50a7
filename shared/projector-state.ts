import { SessionLogError } from './errors.ts';
import type { DerivedMessage } from './events.ts';
import { freezeJson } from './freeze-json.ts';

/**
 * Version of the `ProjectorState` layout. A state of another version is never restored (a reader rebuilds it from
 * the log instead); bump it whenever the layout or the meaning of a field changes.
 */
export const PROJECTOR_FORMAT_VERSION = 1;

/**
 * A `MessageProjector` as plain JSON-able data: everything it needs to keep applying later events exactly,
 * including replacements and prunes aimed at any seq still on the surface (before the state was taken or after).
 */
export interface ProjectorState {
  readonly formatVersion: number;
  /** Events applied: the state is the projection of the log's seqs 0..length-1. */
  readonly length: number;
  /** The surface: seqs of the surface nodes, in surface order. */
  readonly surface: readonly number[];
  /** Indices into `surface` (ascending) of the nodes that project to no message. */
  readonly silent: readonly number[];
  /** The derived messages: one per surface node not in `silent`, in surface order. */
  readonly messages: readonly DerivedMessage[];
}

function invalid(reason: string, path: string): never {
  throw new SessionLogError('INVALID_SNAPSHOT', `projector state: ${reason}`, { path });
}

function isIndex(value: unknown, below: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value < below;
}

function checkIntegers(value: unknown, path: string, below: number): readonly number[] {
  if (!Array.isArray(value)) invalid('not an array', path);
  const list = value as readonly unknown[];
  for (let index = 0; index < list.length; index++) {
    if (!isIndex(list[index], below)) invalid(`not an integer in 0..${below - 1}`, `${path}[${index}]`);
  }
  return list as readonly number[];
}

/**
 * Checks a state from outside (a store, the network) and returns it with deep-frozen messages. Shape only: that
 * the state is the projection of the log it claims is the snapshot's checksum's and the writer's business.
 * Throws `SessionLogError` `INVALID_SNAPSHOT` (with the path) on anything else, including another format version.
 */
export function checkProjectorState(value: unknown): ProjectorState {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('not an object', 'state');
  const state = value as Record<string, unknown>;
  if (state['formatVersion'] !== PROJECTOR_FORMAT_VERSION) {
    invalid(`format version is not ${PROJECTOR_FORMAT_VERSION}`, 'state.formatVersion');
  }
  const length = state['length'];
  if (!isIndex(length, Number.MAX_SAFE_INTEGER)) invalid('length is not a non-negative integer', 'state.length');
  const surface = checkIntegers(state['surface'], 'state.surface', length);
  if (new Set(surface).size !== surface.length) invalid('a seq is twice on the surface', 'state.surface');
  const silent = checkIntegers(state['silent'], 'state.silent', surface.length);
  for (let index = 1; index < silent.length; index++) {
    if (silent[index]! <= silent[index - 1]!) invalid('not ascending', `state.silent[${index}]`);
  }
  const rawMessages = state['messages'];
  if (!Array.isArray(rawMessages)) invalid('not an array', 'state.messages');
  if (rawMessages.length !== surface.length - silent.length) {
    invalid('one message per surface node that is not silent', 'state.messages');
  }
  const messages = freezeJson(rawMessages, 'state.messages') as readonly unknown[];
  messages.forEach((message, index) => {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      invalid('not an object', `state.messages[${index}]`);
    }
    if (typeof (message as Record<string, unknown>)['role'] !== 'string') {
      invalid('no role', `state.messages[${index}].role`);
    }
  });
  return {
    formatVersion: PROJECTOR_FORMAT_VERSION,
    length,
    surface,
    silent,
    messages: messages as readonly DerivedMessage[],
  };
}
