import { hasLoneSurrogate } from './check-helpers.ts';

/**
 * A session's metadata (docs/protocol.md#session-metadata): who made it and when, a title and labels set by its
 * writers, and its lineage when it is a fork. Kept beside the session by the store, deleted with it.
 */
export interface SessionMetadata {
  /** Commit time (epoch ms) of the session's first event; absent until then. */
  readonly createdAt?: number;
  /** The token subject of the session's first append (`anonymous` on an open hub). */
  readonly createdBy?: string;
  readonly title?: string;
  /** Free labels, e.g. `{ team: 'red', env: 'prod' }`; at most `METADATA_LIMITS.labels`. */
  readonly labels: Readonly<Record<string, string>>;
  /** The session this one was forked from, and the last seq it shares with it. */
  readonly parent?: string;
  readonly forkSeq?: number;
  /** Counts the changes (0 before the first): of two `metadata` frames of a session, the higher `rev` is newer. */
  readonly rev: number;
}

/**
 * A change to a session's metadata, merged into it (JSON merge patch): `title` set, or removed with `null`; each
 * label set, or removed with `null`; labels not named are kept. Fields not named are kept.
 */
export interface MetadataPatch {
  readonly title?: string | null;
  readonly labels?: Readonly<Record<string, string | null>>;
}

/** Bounds of a session's metadata; a patch beyond any is refused with INVALID_METADATA and changes nothing. */
export const METADATA_LIMITS = Object.freeze({
  /** Length of the title (UTF-16 code units). */
  titleUnits: 256,
  /** Labels a session may hold (after the patch). */
  labels: 32,
  /** Length of a label key: 1–64 of `A–Z a–z 0–9 . _ / -`, starting with a letter or digit. */
  labelKeyUnits: 64,
  /** Length of a label value (UTF-16 code units). */
  labelValueUnits: 256,
});

/** A metadata patch (or the metadata it would give) breaks a bound or a rule. Wire code `INVALID_METADATA`. */
export class MetadataError extends Error {
  override readonly name = 'MetadataError';
  readonly code = 'INVALID_METADATA';
  /** The field at fault: `title`, `labels`, or `labels.<key>`. */
  readonly field: string;

  constructor(message: string, field: string) {
    super(message);
    this.field = field;
  }
}

const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function checkText(value: unknown, field: string, maxUnits: number): string {
  if (typeof value !== 'string') throw new MetadataError(`${field} must be a string or null`, field);
  if (value.length > maxUnits) throw new MetadataError(`${field} is longer than ${maxUnits} characters`, field);
  if (hasLoneSurrogate(value) || CONTROL_CHARACTER.test(value)) {
    throw new MetadataError(`${field} must be well-formed text without control characters`, field);
  }
  return value;
}

/** Why `key` is not a usable label key, or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  if (key.length === 0 || key.length > METADATA_LIMITS.labelKeyUnits || !LABEL_KEY.test(key)) {
    return `a label key is 1–${METADATA_LIMITS.labelKeyUnits} of A–Z a–z 0–9 . _ / - starting with a letter or digit`;
  }
  return undefined;
}

/**
 * Checks a metadata patch from the network and returns it as a fresh plain value: an object with only `title` and
 * `labels`, bounded as `METADATA_LIMITS` says (the label count after merging is the store's check). Throws
 * `MetadataError` naming the field.
 */
export function parseMetadataPatch(value: unknown): MetadataPatch {
  if (!isPlainObject(value)) throw new MetadataError('the metadata patch must be an object { title?, labels? }', '');
  const patch: { title?: string | null; labels?: Record<string, string | null> } = {};
  for (const field of Object.keys(value)) {
    if (field !== 'title' && field !== 'labels') {
      throw new MetadataError(`unknown metadata field "${field.slice(0, 64)}" (title, labels)`, field.slice(0, 64));
    }
  }
  if ('title' in value && value['title'] !== undefined) {
    const title = value['title'];
    patch.title = title === null ? null : checkText(title, 'title', METADATA_LIMITS.titleUnits);
  }
  if ('labels' in value && value['labels'] !== undefined) {
    const labels = value['labels'];
    if (!isPlainObject(labels)) throw new MetadataError('labels must be an object of strings (or null)', 'labels');
    const keys = Object.keys(labels);
    if (keys.length > METADATA_LIMITS.labels) {
      throw new MetadataError(`at most ${METADATA_LIMITS.labels} labels`, 'labels');
    }
    const entries: [string, string | null][] = [];
    for (const key of keys) {
      const problem = labelKeyProblem(key);
      if (problem !== undefined) throw new MetadataError(problem, `labels.${key.slice(0, 64)}`);
      const label = labels[key];
      entries.push([key, label === null ? null : checkText(label, `labels.${key}`, METADATA_LIMITS.labelValueUnits)]);
    }
    patch.labels = Object.fromEntries(entries);
  }
  return patch;
}

/**
 * Whether `next` should replace `held` (of the same session id): a higher `rev`, or another incarnation of the
 * session (deleted and written again: its `rev` starts over, and its `createdAt` is the new first commit's).
 */
export function isNewerMetadata(next: SessionMetadata, held: SessionMetadata | undefined): boolean {
  if (held === undefined || next.rev > held.rev) return true;
  return next.createdAt !== undefined && next.createdAt !== held.createdAt;
}

/** The metadata of a session that has none yet. */
export const EMPTY_METADATA: SessionMetadata = Object.freeze({ labels: Object.freeze({}), rev: 0 });

/**
 * Checks a `SessionMetadata` received from a hub (an SDK reading a `metadata` frame): its fields' types and bounds.
 * Throws `MetadataError`. Unknown fields are dropped.
 */
export function parseSessionMetadata(value: unknown): SessionMetadata {
  if (!isPlainObject(value)) throw new MetadataError('metadata must be an object', '');
  const { rev, createdAt, createdBy, title, labels, parent, forkSeq } = value;
  if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 0) throw new MetadataError('rev', 'rev');
  const checked = parseMetadataPatch({ labels, ...(title === undefined ? {} : { title }) });
  const metadata: { -readonly [K in keyof SessionMetadata]: SessionMetadata[K] } = {
    labels: (checked.labels ?? {}) as Record<string, string>,
    rev,
  };
  if (Object.values(metadata.labels).some((label) => label === null)) throw new MetadataError('labels', 'labels');
  if (typeof checked.title === 'string') metadata.title = checked.title;
  if (typeof createdAt === 'number' && Number.isSafeInteger(createdAt)) metadata.createdAt = createdAt;
  if (typeof createdBy === 'string' && createdBy.length <= 1024) metadata.createdBy = createdBy;
  if (typeof parent === 'string' && parent.length <= 1024) metadata.parent = parent;
  if (typeof forkSeq === 'number' && Number.isSafeInteger(forkSeq)) metadata.forkSeq = forkSeq;
  return metadata;
}
