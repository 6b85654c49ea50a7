// `node --conditions=source --import tsx examples/react-chat/serve.ts`: a hub (embedded memory engine) on :8080 that
// takes the Vite dev server's pages, and the example agent on the session. Then `npx vite examples/react-chat` and
// open http://127.0.0.1:5173/?session=demo/react-chat in two tabs.
import { createHub, MemoryStore } from 'session-hub/server';
import { startChatAgent } from './agent.ts';

const sessionId = process.argv[2] ?? 'demo/react-chat';
const hub = createHub({
  store: new MemoryStore(),
  port: 8080,
  host: '127.0.0.1',
  allowedOrigins: ['http://127.0.0.1:5173', 'http://localhost:5173'],
});
const { wsUrl } = await hub.listen();
const stopAgent = startChatAgent({ url: wsUrl, sessionId });
console.log(`hub on ${wsUrl}; agent answering on ${sessionId}`);
process.once('SIGINT', () => {
  stopAgent();
  void hub.close();
});
