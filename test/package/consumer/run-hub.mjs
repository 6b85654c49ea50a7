// Plain Node, no loader: the installed package's three entry points (and the protocol one), a hub on the memory
// engine, and the SDK subscribing and appending. Prints one JSON line for the test to check.
import { HubClient } from 'session-hub';
import { deriveMessages } from 'session-hub/shared';
import { HubErrorCode } from 'session-hub/protocol';
import { createHub, MemoryStore } from 'session-hub/server';

const store = new MemoryStore();
const hub = createHub({ store, port: 0, logLevel: 'silent' });
const { wsUrl } = await hub.listen();
const client = new HubClient({ url: wsUrl });
const subscription = client.subscribe('consumer/1');
await subscription.whenLive();
const received = new Promise((resolve) => subscription.on('event', resolve));
const [committed] = await client.append('consumer/1', { type: 'user/message', data: { role: 'user', content: 'hi' } });
const event = await received;
process.stdout.write(
  JSON.stringify({
    committedSeq: committed.seq,
    receivedSeq: event.seq,
    messages: deriveMessages(subscription.events),
    forbidden: HubErrorCode.FORBIDDEN,
  }) + '\n',
);
client.close();
await hub.close();
await store.close();
