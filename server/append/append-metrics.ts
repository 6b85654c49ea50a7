import type { AppendOutcome } from './pipeline.ts';
import type { HubMetrics } from '../metrics.ts';

/** Run one append (socket or HTTP) and count it: result, events appended, duration. Errors pass through. */
export async function measureAppend(metrics: HubMetrics, append: () => Promise<AppendOutcome>): Promise<AppendOutcome> {
  const started = performance.now();
  try {
    const outcome = await append();
    const { hot } = metrics;
    if (outcome.duplicate) hot.appendsDuplicate++;
    else hot.appendsCommitted++;
    if (outcome.events !== undefined) hot.eventsAppended += outcome.events.length;
    return outcome;
  } catch (error) {
    metrics.hot.appendsFailed++;
    throw error;
  } finally {
    metrics.appendDuration.observe((performance.now() - started) / 1000);
  }
}
