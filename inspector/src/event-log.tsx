// The raw event log: seq, time, type, surface op, a summary; replaced events marked and linked to their replacement,
// redacted events marked.
import { useMemo } from 'preact/hooks';
import { redactedSeqsOf, type SessionEvent } from '../../shared/index.ts';
import { eventSummary } from './session-model.ts';
import { VirtualList } from './virtual-list.tsx';

export interface EventLogProps {
  readonly events: readonly SessionEvent[];
  readonly replacedBy: ReadonlyMap<number, number>;
  readonly selected: number | undefined;
  readonly onSelect: (seq: number) => void;
  readonly follow: boolean;
  /** The user scrolled to the first rows held: page older events in. */
  readonly onNearStart?: () => void;
}

function SurfaceOp({ event, onSelect }: { event: SessionEvent; onSelect: (seq: number) => void }) {
  const op = event.surfaceOp;
  if (op === undefined) return <span class="op" />;
  if (op === 'append') return <span class="op">append</span>;
  return (
    <span class="op">
      replace
      <SeqLink seq={op.startSeq} onSelect={onSelect} />
      {op.endSeq !== op.startSeq && (
        <>
          –<SeqLink seq={op.endSeq} onSelect={onSelect} />
        </>
      )}
    </span>
  );
}

function SeqLink({ seq, onSelect }: { seq: number; onSelect: (seq: number) => void }) {
  return (
    <a href={`#seq-${seq}`} class="seq-link" onClick={(event) => (event.preventDefault(), onSelect(seq))}>
      {seq}
    </a>
  );
}

export function EventLog(props: EventLogProps) {
  const { events, replacedBy, onSelect } = props;
  // Seqs whose data a redaction replaced (named by the log's audit/redaction events).
  const redacted = useMemo(() => redactedSeqsOf(events), [events]);
  return (
    <VirtualList
      count={events.length}
      estimateSize={24}
      follow={props.follow && props.selected === undefined}
      scrollTo={props.selected}
      rowKey={(index) => events[index]!.seq}
      onNearStart={props.onNearStart}
      testId="event-log"
      className="event-log"
      renderRow={(index) => {
        const event = events[index]!;
        const hiddenBy = replacedBy.get(event.seq);
        const classes = [
          'event-row',
          hiddenBy !== undefined ? 'replaced' : '',
          redacted.has(event.seq) ? 'redacted' : '',
          props.selected === event.seq ? 'selected' : '',
        ];
        return (
          <div class={classes.join(' ')} data-seq={event.seq} data-type={event.type}>
            <span class="seq">{event.seq}</span>
            <span class="time">{new Date(event.time).toISOString().slice(11, 23)}</span>
            <span class="type" title={event.type}>
              {event.type}
            </span>
            <SurfaceOp event={event} onSelect={onSelect} />
            <span class="summary">{eventSummary(event)}</span>
            {redacted.has(event.seq) && (
              <span class="redacted-mark" title="its data was replaced by a placeholder (audit/redaction)">
                redacted
              </span>
            )}
            {hiddenBy !== undefined && (
              <span class="replaced-by">
                replaced by <SeqLink seq={hiddenBy} onSelect={onSelect} />
              </span>
            )}
            {(event.sourceEventSeqs ?? []).length > 0 && (
              <span class="sources">
                from{' '}
                {event.sourceEventSeqs!.map((seq) => (
                  <SeqLink key={seq} seq={seq} onSelect={onSelect} />
                ))}
              </span>
            )}
          </div>
        );
      }}
    />
  );
}
