// A session's title and labels: shown, and editable where the token may append (the hub checks it anyway).
import { useEffect, useState } from 'preact/hooks';
import type { HubClient, MetadataPatch, SessionMetadata } from '../../client/index.ts';

/** `k=v, k2=v2` → labels; undefined when a part is not `key=value`. */
function parseLabels(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const split = item.indexOf('=');
    if (split <= 0) return undefined;
    labels[item.slice(0, split).trim()] = item.slice(split + 1).trim();
  }
  return labels;
}

const labelText = (labels: Readonly<Record<string, string>>): string =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

/** The patch that turns `current` into the given title and labels (labels not kept are removed with `null`). */
function patchFor(current: SessionMetadata | undefined, title: string, labels: Record<string, string>): MetadataPatch {
  const removed = Object.keys(current?.labels ?? {}).filter((key) => !Object.hasOwn(labels, key));
  return {
    title: title === '' ? null : title,
    labels: { ...Object.fromEntries(removed.map((key) => [key, null])), ...labels },
  };
}

export function MetadataEditor(props: {
  client: HubClient | undefined;
  sessionId: string;
  metadata: SessionMetadata | undefined;
  editable: boolean;
}) {
  const { metadata } = props;
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [labels, setLabels] = useState('');
  const [result, setResult] = useState('');
  useEffect(() => {
    if (editing) return;
    setTitle(metadata?.title ?? '');
    setLabels(labelText(metadata?.labels ?? {}));
  }, [metadata, editing]);
  const save = async (): Promise<void> => {
    const parsed = parseLabels(labels);
    if (parsed === undefined) {
      setResult('labels: write key=value, separated by commas');
      return;
    }
    try {
      await props.client?.setMetadata(props.sessionId, patchFor(metadata, title, parsed));
      setResult('');
      setEditing(false);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      setResult(
        `${typeof code === 'string' ? code : 'error'}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  if (!editing) {
    return (
      <div class="metadata" data-testid="metadata">
        <strong data-testid="session-title">{metadata?.title ?? ''}</strong>{' '}
        <span class="muted" data-testid="session-labels">
          {labelText(metadata?.labels ?? {})}
        </span>
        {metadata?.createdAt !== undefined && (
          <span class="muted">
            {' '}
            created {new Date(metadata.createdAt).toLocaleString()}
            {metadata.createdBy === undefined ? '' : ` by ${metadata.createdBy}`}
          </span>
        )}
        {props.editable && (
          <button data-testid="edit-metadata" onClick={() => setEditing(true)}>
            edit title and labels
          </button>
        )}
      </div>
    );
  }
  return (
    <form
      class="metadata"
      data-testid="metadata-form"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <input
        placeholder="title"
        value={title}
        data-testid="title-input"
        onInput={(event) => setTitle((event.target as HTMLInputElement).value)}
      />
      <input
        placeholder="labels: team=red, env=prod"
        value={labels}
        data-testid="labels-input"
        onInput={(event) => setLabels((event.target as HTMLInputElement).value)}
      />
      <button type="submit">Save</button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <span class="muted">{result}</span>
    </form>
  );
}
