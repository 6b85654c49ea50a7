// The reload test page: a chat view that keeps its subscription's snapshot in IndexedDB and resumes from it after
// a page reload (the example of docs/client.md, with the raw IndexedDB API). It reports what it did in data-*.
import { HubClient } from '../../client/index.ts';
import type { DerivedMessage, SubscriptionSnapshot } from '../../client/index.ts';

const params = new URLSearchParams(location.search);
const sessionId = params.get('session') ?? '';
const key = `session:${sessionId}`;
const report = document.body.dataset;

function database(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open('session-hub-snapshots', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('snapshots');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function stored<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  return database().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const request = act(db.transaction('snapshots', mode).objectStore('snapshots'));
        request.onsuccess = () => resolve(request.result as T);
        request.onerror = () => reject(request.error);
      }),
  );
}

function render(messages: readonly DerivedMessage[]): void {
  const list = document.getElementById('messages')!;
  list.replaceChildren(
    ...messages.map((message) => {
      const item = document.createElement('li');
      item.dataset['role'] = message.role;
      item.textContent = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      return item;
    }),
  );
}

const kept = await stored<SubscriptionSnapshot | undefined>('readonly', (store) => store.get(key));
report['keptLastSeq'] = String(kept === undefined ? -1 : (kept.events.at(-1)?.seq ?? -1));
const client = new HubClient({ url: params.get('hub') ?? '' });
const subscription = client.subscribe(sessionId, kept === undefined ? {} : { resume: kept });
report['seededMessages'] = String(subscription.messages.length);
render(subscription.messages);
let received = 0;
let resets = 0;
subscription.on('event', () => (report['received'] = String(++received)));
subscription.on('reset', () => {
  report['resets'] = String(++resets);
  render([]);
});
subscription.on('messages', (_change, messages) => render(messages));
subscription.on('live', () => {
  void stored('readwrite', (store) => store.put(subscription.snapshot(), key)).then(() => {
    report['savedLastSeq'] = String(subscription.lastSeq);
  });
});
subscription.on('error', (error) => (report['error'] = `${error.code}: ${error.message}`));
