import {
  MetadataError,
  parseMetadataPatch,
  type MetadataPatch,
  type SessionMetadata,
} from '../../shared/session-metadata.ts';
import { JSONL_METADATA_KIND } from '../../shared/jsonl.ts';
import { CliFailure } from './command.ts';

/**
 * The first line of an export: the session's metadata, `{"kind":"session-hub/metadata","sessionId",…,"metadata"}`.
 * `parseJsonl` skips it; `import` restores its title and labels (the creation time comes back with the events' times).
 */
export function metadataHeaderLine(sessionId: string, metadata: SessionMetadata): string {
  // Without `rev`, which counts the changes on one hub: an export, import and export again give the same bytes.
  const { rev, ...kept } = metadata;
  void rev;
  return `${JSON.stringify({ kind: JSONL_METADATA_KIND, sessionId, metadata: kept })}\n`;
}

/**
 * The metadata header of a JSONL text, if its first non-blank line is one: the title and labels to restore (checked
 * as a patch from the network is), and the text with that line blanked (line numbers stay those of the file).
 */
export function takeMetadataHeader(text: string): { readonly text: string; readonly patch?: MetadataPatch } {
  const lines = text.split('\n');
  const index = lines.findIndex((line) => line.trim() !== '');
  if (index === -1) return { text };
  let header: unknown;
  try {
    header = JSON.parse(lines[index]!);
  } catch {
    return { text };
  }
  if (typeof header !== 'object' || header === null || (header as { kind?: unknown }).kind !== JSONL_METADATA_KIND) {
    return { text };
  }
  const metadata = (header as { metadata?: unknown }).metadata;
  let patch: MetadataPatch;
  try {
    const { title, labels } = (typeof metadata === 'object' && metadata !== null ? metadata : {}) as {
      title?: unknown;
      labels?: unknown;
    };
    patch = parseMetadataPatch({
      ...(title === undefined ? {} : { title }),
      ...(labels === undefined ? {} : { labels }),
    });
  } catch (error) {
    const reason = error instanceof MetadataError ? error.message : String(error);
    throw new CliFailure(`line ${index + 1}: the metadata header is not valid: ${reason}`);
  }
  lines[index] = '';
  return { text: lines.join('\n'), patch };
}
