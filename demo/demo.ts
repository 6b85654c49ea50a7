// `npm run demo`: a hub (embedded memory engine), an agent writing a multi-turn session through AgentWriter,
// and two watchers printing the derived messages live — the second joins late and catches up. Exits when done.
import { AgentWriter, HubClient } from '../client/index.ts';
import type { DerivedMessage, ProjectionChange, Subscription } from '../client/index.ts';
import { createHub, MemoryStore } from '../server/index.ts';
import { deriveMessages } from '../shared/index.ts';

const SESSION = 'demo/calculator';
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function describe(message: DerivedMessage): string {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = message.role === 'assistant' && message['toolCalls'] !== undefined ? ' [calls tools]' : '';
  return `${message.role.padEnd(9)} ${content}${calls}`;
}

function watch(name: string, subscription: Subscription): void {
  subscription.on('messages', (change: ProjectionChange) => {
    if (change.kind === 'appended') {
      change.messages.forEach((message, offset) =>
        console.log(`[${name}] #${change.index + offset} ${describe(message)}`),
      );
    } else if (change.kind === 'replaced') {
      const replacement = change.messages.map(describe).join(' | ') || '(nothing)';
      console.log(`[${name}] #${change.start} replaced ${change.deleteCount} message(s) with: ${replacement}`);
    }
  });
  subscription.on('live', (headSeq) => console.log(`[${name}] live at seq ${headSeq}`));
  subscription.on('error', (error) => console.error(`[${name}] error ${error.code}: ${error.message}`));
}

async function stream(writer: AgentWriter, text: string): Promise<string> {
  for (const word of text.split(/(?<= )/)) {
    void writer.streamChunk(word);
    await pause(15);
  }
  return text;
}

function caughtUp(subscription: Subscription, seq: number): Promise<void> {
  return new Promise((resolve) => {
    if (subscription.lastSeq >= seq) resolve();
    else subscription.on('event', (event) => event.seq >= seq && resolve());
  });
}

async function main(): Promise<void> {
  const store = new MemoryStore();
  const hub = createHub({ store, port: 0, host: '127.0.0.1', logLevel: 'warn' });
  const { wsUrl } = await hub.listen();
  console.log(`hub listening at ${wsUrl} (memory engine: nothing is persisted)\n`);

  const early = new HubClient({ url: wsUrl });
  const earlySubscription = early.subscribe(SESSION);
  watch('early', earlySubscription);

  const agent = new HubClient({ url: wsUrl });
  const writer = await AgentWriter.attach(agent, SESSION);
  await writer.setSystemPrompt('You are a calculator. Use the tools.');

  // Turn 1: a streamed answer with a tool call.
  await writer.userMessage('What is 17 × 23?');
  await writer.startTurn();
  await writer.startStep();
  const thinking = await stream(writer, 'Let me multiply that for you.');
  await writer.commitAssistantMessage(
    { content: thinking, toolCalls: [{ id: 'call-1', name: 'multiply', arguments: '{"a":17,"b":23}' }] },
    { inputTokens: 31, outputTokens: 12 },
  );
  await writer.toolCall({ callId: 'call-1', name: 'multiply', arguments: { a: 17, b: 23 } });
  await pause(100);
  await writer.toolResult({ callId: 'call-1', content: '391' });
  await writer.endStep();
  await writer.startStep();
  await writer.commitAssistantMessage({ content: await stream(writer, '17 × 23 = 391.') });
  await writer.endTurn('completed');

  // A second watcher joins late, from seq 0: it catches up, then follows live.
  console.log('\n--- a second watcher joins late ---');
  const late = new HubClient({ url: wsUrl });
  const lateSubscription = late.subscribe(SESSION);
  watch('late ', lateSubscription);
  await lateSubscription.whenLive();
  console.log('');

  // Turn 2: the system prompt changes (a replacement), then two tool calls in one step.
  await writer.setSystemPrompt('You are a terse calculator.');
  await writer.userMessage('Now divide it by 17 and add 9.');
  await writer.startTurn();
  await writer.startStep();
  await writer.commitAssistantMessage({
    content: await stream(writer, 'Two steps.'),
    toolCalls: [
      { id: 'call-2', name: 'divide', arguments: '{"a":391,"b":17}' },
      { id: 'call-3', name: 'add', arguments: '{"a":23,"b":9}' },
    ],
  });
  await writer.toolCall({ callId: 'call-2', name: 'divide', arguments: { a: 391, b: 17 } });
  await writer.toolCall({ callId: 'call-3', name: 'add', arguments: { a: 23, b: 9 } });
  await writer.toolResult({ callId: 'call-2', content: '23' });
  await writer.toolResult({ callId: 'call-3', content: '32' });
  await writer.endStep();
  await writer.startStep();
  await writer.commitAssistantMessage({ content: await stream(writer, '391 / 17 + 9 = 32.') });
  await writer.endTurn('completed');
  await writer.flush();

  const lastSeq = writer.nextSeq - 1;
  const watchers = [earlySubscription, lateSubscription];
  await Promise.all(watchers.map((subscription) => caughtUp(subscription, lastSeq)));
  const expected = JSON.stringify(deriveMessages(lateSubscription.events));
  const agree = watchers.every((subscription) => JSON.stringify(subscription.messages) === expected);
  console.log(`\n${lastSeq + 1} events; both watchers' live messages equal deriveMessages(log): ${agree}`);

  for (const client of [early, late, agent]) client.close();
  await hub.close();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
