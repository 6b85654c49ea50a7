// Plain Node, no loader: the installed package's React and AI SDK entry points (react and ai installed beside it, as
// their optional peers), rendered on the server and mapping a log. Prints one JSON line for the test to check.
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { HubClient } from 'session-hub';
import { HubProvider, useSession } from 'session-hub/react';
import { HubChatTransport, logToUIMessages, uiToDerivedMessages } from 'session-hub/ai-sdk';

const client = new HubClient({ url: 'ws://127.0.0.1:9/v1/ws' });
function View() {
  return createElement('p', null, useSession(null, 'consumer/react').status);
}
const html = renderToString(createElement(HubProvider, { client }, createElement(View)));
const log = [
  { seq: 0, time: 1, type: 'user/message', surfaceOp: 'append', data: { role: 'user', content: 'hi', id: 'u1' } },
  { seq: 1, time: 2, type: 'turn/start', data: { turn: 1 } },
  { seq: 2, time: 3, type: 'step/start', data: { turn: 1, step: 1 } },
  { seq: 3, time: 4, type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: 'hello' } },
];
const transport = new HubChatTransport({ client, sessionId: 'consumer/react' });
client.close();
process.stdout.write(
  JSON.stringify({
    html,
    replay: transport.resumeStreamIsReplay,
    derived: uiToDerivedMessages(logToUIMessages(log)),
  }) + '\n',
);
