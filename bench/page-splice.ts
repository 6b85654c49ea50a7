/**
 * `node --import tsx bench/page-splice.ts`: CPU per 1,000-event catch-up page, built the way the hub sends it
 * (`EncodedEventPage`: every stored body verified by a scan, then spliced into the frame) next to the way it was
 * built before (every body decoded and verified, the events encoded again with msgpackr), for event sizes from the
 * bench's streamed chunk to large tool results. In-process, no I/O; best of 7 repetitions.
 */
import { pathToFileURL } from 'node:url';
import { freezeJson } from '../shared/index.ts';
import { encodeMsgpackValue } from '../shared/codec.ts';
import { decodeEventBody, encodeEventBody, toSessionEvent } from '../server/store/codec/event-codec.ts';
import { EncodedEventPage } from '../server/store/codec/encoded-page.ts';
import { bestCpuMicrosPerCall } from './best-cpu.ts';

export interface PageSpliceCost {
  readonly label: string;
  /** Bytes of text in each event's data. */
  readonly textBytes: number;
  /** CPU ms per page of `pageEvents` events: spliced (what the hub does) and decoded + encoded again. */
  readonly splicedMs: number;
  readonly reencodedMs: number;
  /** Bytes of the page each way (the same when the splice is right). */
  readonly splicedBytes: number;
  readonly reencodedBytes: number;
}

const TIME = 1_767_225_600_123;
const REPETITIONS = 7;

/** Best CPU ms per page of `runs` builds (after `runs` × 3 untimed ones). */
function bestCpuMs(runs: number, build: () => number): number {
  return bestCpuMicrosPerCall(runs, build, { repetitions: REPETITIONS, warmupCalls: runs * 3 }) / 1000;
}

/** Each size: a page of `pageEvents` `tool/result` events whose output is `textBytes` of ASCII text. */
export function measurePageSplice(options: {
  readonly sizes: readonly (readonly [string, number])[];
  readonly pageEvents: number;
  readonly runs: number;
}): PageSpliceCost[] {
  return options.sizes.map(([label, textBytes]) => {
    const text = 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(textBytes / 28)).slice(0, textBytes);
    const bodies = Array.from({ length: options.pageEvents }, (_, index) =>
      encodeEventBody({ type: 'tool/result', data: freezeJson({ callId: `call-${index}`, output: text }) }),
    );
    const times = bodies.map(() => TIME);
    const spliced = (): number =>
      new EncodedEventPage('s', { epoch: 'e', firstSeq: 0, bodies, times }).msgpack().byteLength;
    const reencoded = (): number =>
      encodeMsgpackValue(bodies.map((body, seq) => toSessionEvent(decodeEventBody(body, 'bench'), seq, TIME)))
        .byteLength;
    return {
      label,
      textBytes,
      splicedMs: bestCpuMs(options.runs, spliced),
      reencodedMs: bestCpuMs(options.runs, reencoded),
      splicedBytes: spliced(),
      reencodedBytes: reencoded(),
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const costs = measurePageSplice({
    sizes: [
      ['streamed chunk', 120],
      ['tool result', 4096],
      ['large tool result', 32_768],
    ],
    pageEvents: 1000,
    runs: 10,
  });
  console.log(
    'event                      text bytes  spliced (hub), CPU ms/page  decoded + encoded again, CPU ms/page',
  );
  for (const cost of costs) {
    console.log(
      `${cost.label.padEnd(25)} ${String(cost.textBytes).padStart(11)}  ${cost.splicedMs.toFixed(2).padStart(26)}  ${cost.reencodedMs.toFixed(2).padStart(37)}`,
    );
  }
}
