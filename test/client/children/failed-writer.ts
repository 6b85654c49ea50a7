// Run as a child process under `node --unhandled-rejections=strict` by failed-writer.test.ts: breaks an
// AgentWriter, then calls every public method of the failed writer, fire-and-forget and awaited. An unhandled
// rejection anywhere kills this process (exit code 1); otherwise it prints what each awaited call rejected with.
import { AgentWriter, HubClient } from '../../../client/index.ts';
import type { HubClientError } from '../../../client/index.ts';

const [url, sessionId, failure] = process.argv.slice(2) as [string, string, 'seq-conflict' | 'too-large' | 'timeout'];
const client = new HubClient({ url });
const writer = await AgentWriter.attach(client, sessionId, failure === 'timeout' ? { timeoutMs: 200 } : {});
if (failure === 'timeout') {
  // The hub holds this first commit: no ack in time. The calls queued behind it fail with it, unawaited.
  void writer.setSystemPrompt('be brief');
  void writer.startTurn();
  void writer.startStep();
  void writer.toolCall({ callId: 'c1', name: 'ls', arguments: {} });
} else {
  await writer.setSystemPrompt('be brief');
  await writer.startTurn();
  await writer.startStep();
  await writer.toolCall({ callId: 'c1', name: 'ls', arguments: {} });
}
if (failure === 'timeout') {
  // nothing more: the held commit fails the writer
} else if (failure === 'seq-conflict') {
  await client.append(sessionId, { type: 'other/writer', data: {} }); // another writer moves the head
  void writer.streamChunk('lost');
} else {
  void writer.streamChunk('x'.repeat(4096)); // above the hub's maxEventBytes
}
const cause = await writer.flush().then(
  () => 'no failure',
  (error: HubClientError) => error.code,
);

const calls: Record<string, () => Promise<unknown>> = {
  'startTurn()': () => writer.startTurn(),
  "endTurn('completed')": () => writer.endTurn('completed'),
  "endTurn('aborted')": () => writer.endTurn('aborted'),
  'startStep()': () => writer.startStep(),
  'endStep()': () => writer.endStep(),
  'streamChunk()': () => writer.streamChunk('more'),
  'commitAssistantMessage()': () => writer.commitAssistantMessage({ content: 'done' }),
  'toolCall()': () => writer.toolCall({ callId: 'c2', name: 'ls', arguments: {} }),
  'toolResult()': () => writer.toolResult({ callId: 'c1', content: 'a b' }),
  'pruneToolResult()': () => writer.pruneToolResult('c1', '[pruned]'),
  'setSystemPrompt()': () => writer.setSystemPrompt('be verbose'),
  'userMessage()': () => writer.userMessage('hello?'),
  'requestHeader()': () => writer.requestHeader({ config: {} }, 'change'),
  'extension()': () => writer.extension('agent/status', { busy: true }),
  'flush()': () => writer.flush(),
  'recover()': () => writer.recover(),
};
// Fire and forget: nothing may be reported unhandled.
for (const call of Object.values(calls)) void call();
// Awaited: each rejects with the writer's failure.
const results: Record<string, string> = {};
for (const [name, call] of Object.entries(calls)) {
  results[name] = await call().then(
    () => 'resolved',
    (error: HubClientError) => error.code,
  );
}
// Let every pending rejection reach the unhandled-rejection check before exiting.
await new Promise((resolve) => setImmediate(resolve));
await new Promise((resolve) => setImmediate(resolve));
client.close();
process.stdout.write(JSON.stringify({ cause, results }));
