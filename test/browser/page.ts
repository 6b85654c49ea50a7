// The browser test page: subscribes to a session through the SDK and renders the derived messages.
import { HubClient } from '../../client/index.ts';
import type { DerivedMessage } from '../../client/index.ts';

const params = new URLSearchParams(location.search);
const url = params.get('hub') ?? '';
const sessionId = params.get('session') ?? '';

const status = document.getElementById('status')!;
const list = document.getElementById('messages')!;

function text(message: DerivedMessage): string {
  const content = message.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

function render(messages: readonly DerivedMessage[]): void {
  list.replaceChildren(
    ...messages.map((message) => {
      const item = document.createElement('li');
      item.dataset['role'] = message.role;
      item.textContent = text(message);
      return item;
    }),
  );
}

const client = new HubClient({ url });
client.on('state', (state) => {
  document.body.dataset['connection'] = state;
});
const subscription = client.subscribe(sessionId);
subscription.on('messages', (_change, messages) => render(messages));
subscription.on('live', (headSeq) => {
  status.textContent = `live at ${headSeq}`;
  document.body.dataset['lastSeq'] = String(subscription.lastSeq);
});
subscription.on('event', (event) => {
  document.body.dataset['lastSeq'] = String(event.seq);
});
subscription.on('error', (error) => {
  status.textContent = `error ${error.code}: ${error.message}`;
});

// `?append=<content>`: append a user message through the SDK and report the committed seq (or the error).
const appendContent = params.get('append');
if (appendContent !== null) {
  document.body.dataset['secureContext'] = String(globalThis.isSecureContext);
  document.body.dataset['hasRandomUuid'] = String(typeof globalThis.crypto.randomUUID === 'function');
  client.append(sessionId, { type: 'user/message', data: { role: 'user', content: appendContent } }).then(
    (events) => {
      document.body.dataset['appended'] = String(events[0]?.seq);
    },
    (error: unknown) => {
      document.body.dataset['appended'] = `error ${String(error)}`;
    },
  );
}
