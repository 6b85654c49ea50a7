import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AckWriterConfig, AckWriterResult } from './child/ack-writer.ts';
import type { ServerProcess } from './child/spawn.ts';
import type { Closable, FanoutSystem } from './clients/types.ts';
import type { Timing } from './fanout-run.ts';
import type { LatencySummary } from './stats.ts';

/** The append→ack case: where the subscribers and the writer run, and at what rate it appends. */
export interface AckCase {
  readonly system: FanoutSystem;
  readonly server: ServerProcess;
  readonly subscribers: number;
  readonly sessionId: string;
  readonly ratePerSec: number;
  readonly timing: Timing;
}

/**
 * append→ack with `subscribers` on the same node: the subscribers live in the bench process (they receive every
 * event), the writer in a child process of its own, so its ack latency is not queued behind the bench process
 * decoding the subscribers' frames. One discarded warm-up window, then the measured one.
 */
export async function runAckCase(ackCase: AckCase): Promise<LatencySummary> {
  const { system, server, subscribers, sessionId } = ackCase;
  const port = server.ports[0]!;
  const connected: Closable[] = [];
  try {
    for (let first = 0; first < subscribers; first += 100) {
      const batch = Array.from({ length: Math.min(100, subscribers - first) }, () =>
        system.subscribe(port, sessionId, () => undefined),
      );
      connected.push(...(await Promise.all(batch)));
    }
    const result = await runAckWriter({
      port,
      sessionId,
      ratePerSec: ackCase.ratePerSec,
      warmupMs: ackCase.timing.warmupMs,
      durationMs: ackCase.timing.durationMs,
    });
    if (!result.ok) throw new Error(`ack writer: ${result.error}`);
    return result.ackLatency;
  } finally {
    for (const closable of connected) closable.close();
  }
}

function runAckWriter(config: AckWriterConfig): Promise<AckWriterResult> {
  const entry = fileURLToPath(new URL('./child/ack-writer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ACK_WRITER_CONFIG: JSON.stringify(config) },
  });
  return new Promise((resolve, reject) => {
    let result: AckWriterResult | undefined;
    child.once('message', (message: AckWriterResult) => (result = message));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`the ack writer exited with ${String(code)} without a result`));
    });
  });
}
