import { hasLoneSurrogate } from './check-helpers.ts';
import { PROTOCOL_BOUNDS } from './protocol.ts';

// The field reader under the protocol parsers (protocol-parse.ts): one message's fields, checked one by one, each
// failure a `ProtocolParseError` naming the field.

/** A decoded frame that is not a well-formed message (wire code `BAD_REQUEST`). `id` is set when readable. */
export class ProtocolParseError extends Error {
  override readonly name = 'ProtocolParseError';
  readonly code = 'BAD_REQUEST';
  /** The request id, when the frame had a usable one (so the error reply can echo it). */
  readonly id: number | undefined;

  constructor(message: string, id?: number) {
    super(message);
    this.id = id;
  }
}

/** Longest `idempotencyKey` (and so `after`) of an append, in UTF-16 units (`PROTOCOL_BOUNDS.idempotencyKeyUnits`). */
export const maxIdempotencyKeyUnits = PROTOCOL_BOUNDS.idempotencyKeyUnits;

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function own(record: Fields, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** A seq, request id or time: a non-negative safe integer (not -0, which is not JSON). */
export function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

/** What a string field must be. `wellFormed`: no lone surrogates (keys that must survive UTF-8 unchanged). */
export interface StringRule {
  readonly nonEmpty?: boolean;
  readonly maxLength?: number;
  readonly wellFormed?: boolean;
}

/** Idempotency keys (and `after`, which names one): the same rule as the store's. */
export const KEY_RULE: StringRule = {
  nonEmpty: true,
  maxLength: PROTOCOL_BOUNDS.idempotencyKeyUnits,
  wellFormed: true,
};
/** Tokens (`hello.token`, `auth.token`). */
const TOKEN_RULE: StringRule = { maxLength: PROTOCOL_BOUNDS.tokenUnits };

export class Reader {
  readonly record: Fields;
  readonly kind: string;
  readonly id: number | undefined;

  constructor(record: Fields, kind: string) {
    this.record = record;
    this.kind = kind;
    const id = own(record, 'id');
    this.id = isSeq(id) ? id : undefined;
  }

  fail(message: string): never {
    throw new ProtocolParseError(`${this.kind}: ${message}`, this.id);
  }

  /** A non-negative safe integer (ids, seqs, counts). */
  index(name: string): number {
    const value = own(this.record, name);
    if (!isSeq(value)) this.fail(`field "${name}" must be a non-negative integer`);
    return value;
  }

  optionalIndex(name: string): number | undefined {
    return own(this.record, name) === undefined ? undefined : this.index(name);
  }

  integer(name: string, min: number): number {
    const value = own(this.record, name);
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.fail(`field "${name}" must be an integer >= ${min}`);
    }
    return value;
  }

  string(name: string, options: StringRule = {}): string {
    const value = own(this.record, name);
    if (typeof value !== 'string') this.fail(`field "${name}" must be a string`);
    if (options.nonEmpty === true && value.length === 0) this.fail(`field "${name}" must not be empty`);
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      this.fail(`field "${name}" is longer than ${options.maxLength} characters`);
    }
    if (options.wellFormed === true && hasLoneSurrogate(value)) {
      this.fail(`field "${name}" must be well-formed Unicode (no lone surrogates)`);
    }
    return value;
  }

  optionalString(name: string, options: StringRule = {}): string | undefined {
    return own(this.record, name) === undefined ? undefined : this.string(name, options);
  }

  boolean(name: string): boolean {
    const value = own(this.record, name);
    if (typeof value !== 'boolean') this.fail(`field "${name}" must be a boolean`);
    return value;
  }

  /** An array of at most `maxLength` entries (checked before any entry is looked at). */
  array(name: string, maxLength: number): readonly unknown[] {
    const value = own(this.record, name);
    if (!Array.isArray(value)) this.fail(`field "${name}" must be an array`);
    if (value.length > maxLength) this.fail(`field "${name}" holds more than ${maxLength} entries`);
    return value;
  }

  indexArray(name: string, maxLength: number): readonly number[] {
    const value = this.array(name, maxLength);
    if (!value.every(isSeq)) this.fail(`field "${name}" must hold non-negative integers`);
    return value;
  }

  sessionId(): string {
    return this.string('sessionId', { nonEmpty: true, maxLength: PROTOCOL_BOUNDS.sessionIdUnits });
  }

  token(): string {
    return this.string('token', TOKEN_RULE);
  }

  optionalToken(): string | undefined {
    return this.optionalString('token', TOKEN_RULE);
  }
}
