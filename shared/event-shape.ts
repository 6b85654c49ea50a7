import { invalidEvent } from './check-helpers.ts';
import { TURN_END_REASON_KINDS } from './event-types.ts';
import type { KnownEventType } from './events.ts';
import type { JsonObject, JsonValue } from './json.ts';

type Fields = Readonly<Record<string, JsonValue>>;

function invalid(path: string, reason: string): never {
  return invalidEvent(reason, path);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function object(value: JsonValue | undefined, path: string): Fields {
  if (!isObject(value)) invalid(path, 'must be an object');
  return value;
}

/** Turn and step numbers: integers from 1. */
function counter(fields: Fields, key: string, path: string): void {
  const value = fields[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    invalid(`${path}.${key}`, 'must be an integer ≥ 1');
  }
}

function optionalCounter(fields: Fields, key: string, path: string): void {
  if (fields[key] !== undefined) counter(fields, key, path);
}

function string(fields: Fields, key: string, path: string, nonEmpty = false): void {
  const value = fields[key];
  if (typeof value !== 'string') invalid(`${path}.${key}`, 'must be a string');
  if (nonEmpty && value === '') invalid(`${path}.${key}`, 'must not be empty');
}

function present(fields: Fields, key: string, path: string): void {
  if (fields[key] === undefined) invalid(`${path}.${key}`, 'is required');
}

function oneOf(fields: Fields, key: string, allowed: readonly string[], path: string): void {
  const value = fields[key];
  if (typeof value !== 'string' || !allowed.includes(value)) {
    invalid(`${path}.${key}`, `must be one of ${allowed.map((item) => `'${item}'`).join(', ')}`);
  }
}

function role(fields: Fields, expected: string, path: string): void {
  if (fields['role'] !== expected) invalid(`${path}.role`, `must be '${expected}'`);
}

function stepRef(fields: Fields, path: string): void {
  counter(fields, 'turn', path);
  counter(fields, 'step', path);
}

const checks: Record<KnownEventType, (data: Fields, path: string) => void> = {
  'turn/start': (data, path) => counter(data, 'turn', path),
  'turn/end': (data, path) => {
    counter(data, 'turn', path);
    const reason = object(data['reason'], `${path}.reason`);
    oneOf(reason, 'kind', TURN_END_REASON_KINDS, `${path}.reason`);
  },
  'step/start': stepRef,
  'step/end': stepRef,
  'system/message': (data, path) => {
    optionalCounter(data, 'turn', path);
    optionalCounter(data, 'step', path);
    string(data, 'content', path);
  },
  'user/message': (data, path) => {
    role(data, 'user', path);
    present(data, 'content', path);
  },
  'assistant/chunk': (data, path) => {
    stepRef(data, path);
    present(data, 'chunk', path);
  },
  'assistant/message': (data, path) => {
    stepRef(data, path);
    role(object(data['message'], `${path}.message`), 'assistant', `${path}.message`);
  },
  'tool/call': (data, path) => {
    stepRef(data, path);
    string(data, 'callId', path, true);
    string(data, 'name', path, true);
    string(data, 'arguments', path);
  },
  'tool/result': (data, path) => {
    stepRef(data, path);
    const messagePath = `${path}.message`;
    const message = object(data['message'], messagePath);
    role(message, 'tool', messagePath);
    if (message['toolCallId'] !== undefined) string(message, 'toolCallId', messagePath, true);
    string(message, 'toolName', messagePath, true);
    present(message, 'content', messagePath);
    if (typeof message['isError'] !== 'boolean') invalid(`${messagePath}.isError`, 'must be a boolean');
  },
  'request/header': (data, path) => {
    const header = object(data['header'], `${path}.header`);
    present(header, 'config', `${path}.header`);
    oneOf(data, 'reason', ['initial', 'resume', 'change'], path);
  },
};

/**
 * Checks a known type's data shape (the catalog of the reference). Extra fields are allowed.
 * @throws SessionLogError `INVALID_EVENT` with `path`.
 */
export function checkKnownData(type: KnownEventType, data: JsonValue, path = 'data'): void {
  checks[type](object(data, path), path);
}
