// Append controls, shown only when the token grants append (or the hub is open): one JSON draft or an array.
import { useState } from 'preact/hooks';
import type { HubClient } from '../../client/index.ts';
import type { AppendDraft } from '../../shared/index.ts';

export function AppendBox(props: { client: HubClient; sessionId: string }) {
  const [text, setText] = useState('{ "type": "app/note", "data": { "text": "hello" } }');
  const [result, setResult] = useState('');
  const send = async (): Promise<void> => {
    let drafts: AppendDraft | AppendDraft[];
    try {
      drafts = JSON.parse(text) as AppendDraft | AppendDraft[];
    } catch (error) {
      setResult(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    try {
      const events = await props.client.append(props.sessionId, Array.isArray(drafts) ? drafts : [drafts]);
      setResult(`appended seq ${events.map((event) => event.seq).join(', ')}`);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      setResult(
        `${typeof code === 'string' ? code : 'error'}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  return (
    <form
      class="append-box"
      data-testid="append-box"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <textarea value={text} rows={3} onInput={(event) => setText((event.target as HTMLTextAreaElement).value)} />
      <button type="submit">Append</button>
      <span class="muted">{result}</span>
    </form>
  );
}
