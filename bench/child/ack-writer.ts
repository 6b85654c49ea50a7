/**
 * Child-process entry of the append→ack case: one writer, alone in its process, appends one event at a time to
 * a hub at a fixed rate and measures append→ack, so that the latency it reports is the hub's and not the bench
 * process's (which runs the subscribers and decodes every frame they get). Configured by ACK_WRITER_CONFIG (JSON),
 * it sends one `AckWriterResult` over IPC and exits.
 */
import { performance } from 'node:perf_hooks';
import { hubRawSystem } from '../clients/hub-raw.ts';
import { appendAtRate } from '../load.ts';
import { LatencyRecorder, type LatencySummary } from '../stats.ts';

export interface AckWriterConfig {
  readonly port: number;
  readonly sessionId: string;
  readonly ratePerSec: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

export type AckWriterResult =
  | { readonly ok: true; readonly ackLatency: LatencySummary; readonly errors: number }
  | { readonly ok: false; readonly error: string };

async function run(config: AckWriterConfig): Promise<AckWriterResult> {
  const writer = await hubRawSystem.writer(config.port, config.sessionId);
  const latency = new LatencyRecorder();
  const started = performance.now();
  try {
    const errors = await appendAtRate(writer, config.ratePerSec, config.warmupMs + config.durationMs, (intendedMs) => {
      if (intendedMs - started >= config.warmupMs) latency.recordMs(performance.now() - intendedMs);
    });
    return { ok: true, ackLatency: latency.summary(), errors };
  } finally {
    writer.close();
  }
}

const config = JSON.parse(process.env['ACK_WRITER_CONFIG'] ?? '{}') as AckWriterConfig;
const result = await run(config).catch((error: unknown): AckWriterResult => ({
  ok: false,
  error: error instanceof Error ? error.message : String(error),
}));
process.send?.(result, () => process.disconnect());
