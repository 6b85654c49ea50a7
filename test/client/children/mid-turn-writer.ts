// Run as a child process by writer-recover.test.ts: writes a turn up to an unanswered tool call, says `ready`,
// then waits to be killed (SIGKILL: the agent crashed mid-turn).
import { AgentWriter, HubClient } from '../../../client/index.ts';

const [url, sessionId] = process.argv.slice(2) as [string, string];
const client = new HubClient({ url });
const writer = await AgentWriter.attach(client, sessionId);
await writer.userMessage('list the files, then count them');
await writer.startTurn();
await writer.startStep();
await writer.commitAssistantMessage({ content: [], toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] });
await writer.toolCall({ callId: 'c1', name: 'ls', arguments: {} });
await writer.toolCall({ callId: 'c2', name: 'wc', arguments: {} });
await writer.flush();
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000); // stay alive until killed
