import { runFanoutCase, type Timing } from '../fanout-run.ts';
import { hubTarget } from '../hub-target.ts';
import type { Row } from '../report.ts';
import { stopAll, type BenchContext, type HubTarget } from '../targets.ts';
import { RedisCluster } from '../../test/helpers/redis-cluster.ts';
import { runHubAppend } from './append.ts';

/** One deployment's figures: SDK appends (1 event each, 64 sessions) and fan-out (2 nodes, 100 subscribers). */
export interface DeploymentResult {
  readonly appendEventsPerSec: number | null;
  readonly fanoutDeliveriesPerSec: number | null;
}

export interface ClusterResults {
  readonly oneRedis: DeploymentResult;
  readonly cluster: DeploymentResult;
}

const SUBSCRIBERS = 100;

async function measureDeployment(
  name: string,
  target: HubTarget,
  timing: Timing,
  log: (line: string) => void,
): Promise<DeploymentResult> {
  const append = await runHubAppend(target, 'SDK', 1, 64, 4, timing);
  log(`cluster scenario, ${name}: append ${Math.round(append.eventsPerSec)} events/s (${append.errors} errors)`);
  const servers = await target.start(2);
  try {
    const sessionId = `bench-cluster-fanout-${Date.now()}`;
    const { saturation } = await runFanoutCase({
      system: target.system,
      servers,
      subscribers: SUBSCRIBERS,
      sessionId,
      timing,
    });
    log(`cluster scenario, ${name}: fan-out ${Math.round(saturation.deliveriesPerSec)} deliveries/s`);
    return { appendEventsPerSec: append.eventsPerSec, fanoutDeliveriesPerSec: saturation.deliveriesPerSec };
  } finally {
    await stopAll(servers);
  }
}

/**
 * The hub on a 3-shard Redis Cluster (3 masters + 3 replicas, started here) next to the hub on the bench's one
 * Redis, in the same run: append throughput and fan-out deliveries. Informational (no target): on one machine the
 * cluster's shards share its cores with everything else, so it shows the cost of cluster routing and sharded
 * pub/sub, not the capacity a cluster of machines adds.
 */
export async function runCluster(
  context: BenchContext,
  hub: HubTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: ClusterResults | undefined }> {
  if (hub === undefined) return { rows: [], raw: undefined };
  const timing: Timing = context.quick ? { warmupMs: 300, durationMs: 1500 } : { warmupMs: 1000, durationMs: 5000 };
  const cluster = await RedisCluster.start();
  try {
    const oneRedis = await measureDeployment('one Redis', hub, timing, log);
    const onCluster = await measureDeployment(
      '3-shard cluster',
      hubTarget({ ...context, redisCluster: cluster.urls }),
      timing,
      log,
    );
    const results = { oneRedis, cluster: onCluster };
    return { rows: clusterRows(results), raw: results };
  } finally {
    await cluster.stop();
  }
}

/** Table rows of the cluster scenario (pure). */
export function clusterRows(results: ClusterResults): Row[] {
  const row = (metric: string, pick: (result: DeploymentResult) => number | null): Row => ({
    scenario: 'Redis Cluster, 3 shards',
    metric,
    unit: '/s',
    hub: pick(results.cluster),
    baselineName: 'hub on one Redis (same run)',
    baseline: pick(results.oneRedis),
    target: '',
    met: null,
  });
  return [
    row('append events/s at saturation (SDK, 1 event/append)', (result) => result.appendEventsPerSec),
    row(`fan-out deliveries/s (2 nodes, ${SUBSCRIBERS} subscribers)`, (result) => result.fanoutDeliveriesPerSec),
  ];
}
