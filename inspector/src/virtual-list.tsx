// A virtualized list (@tanstack/virtual-core): only the rows in view are in the DOM, so a 100,000-event log scrolls
// as smoothly as a short one. Rows may have any height: each is measured once rendered.
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import {
  Virtualizer,
  elementScroll,
  observeElementOffset,
  observeElementRect,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';

export interface VirtualListProps {
  readonly count: number;
  readonly estimateSize: number;
  readonly renderRow: (index: number) => ComponentChildren;
  readonly rowKey: (index: number) => string | number;
  /** Keep the view at the end while new rows arrive, as long as the user has not scrolled up. */
  readonly follow?: boolean;
  /** Scroll this row into view when it changes. */
  readonly scrollTo?: number | undefined;
  /** Called when the user scrolls near the first row (to page older rows in before it). */
  readonly onNearStart?: (() => void) | undefined;
  readonly className?: string;
  readonly testId?: string;
}

type ListVirtualizer = Virtualizer<HTMLDivElement, HTMLDivElement>;

export function VirtualList(props: VirtualListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options: VirtualizerOptions<HTMLDivElement, HTMLDivElement> = {
    count: props.count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => props.estimateSize,
    getItemKey: props.rowKey,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    overscan: 8,
    onChange: () => rerender(undefined),
  };
  const [virtualizer] = useState<ListVirtualizer>(() => new Virtualizer(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());

  const atEnd = useRef(true);
  useLayoutEffect(() => {
    if (props.follow === true && atEnd.current && props.count > 0) virtualizer.scrollToIndex(props.count - 1);
  }, [props.count, props.follow, virtualizer]);
  useLayoutEffect(() => {
    if (props.scrollTo !== undefined) virtualizer.scrollToIndex(props.scrollTo, { align: 'center' });
  }, [props.scrollTo, virtualizer]);

  // Rows put in before the first one (older rows paged in): keep the rows in view where they were.
  const firstKey = useRef<string | number | undefined>(undefined);
  const lastCount = useRef(0);
  useLayoutEffect(() => {
    const key = props.count > 0 ? props.rowKey(0) : undefined;
    const element = scrollRef.current;
    const added = props.count - lastCount.current;
    if (element !== null && firstKey.current !== undefined && key !== firstKey.current && added > 0 && !atEnd.current)
      element.scrollTop += added * props.estimateSize;
    firstKey.current = key;
    lastCount.current = props.count;
  });

  const onScroll = (): void => {
    const element = scrollRef.current;
    if (element === null) return;
    atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 24;
    if (element.scrollTop < props.estimateSize * 4) props.onNearStart?.();
  };
  return (
    <div ref={scrollRef} class={`virtual-list ${props.className ?? ''}`} onScroll={onScroll} data-testid={props.testId}>
      <div style={{ height: `${virtualizer.getTotalSize()}px`, position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div
            key={item.key}
            data-index={item.index}
            ref={(element) => {
              if (element !== null) virtualizer.measureElement(element);
            }}
            style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start}px)` }}
          >
            {props.renderRow(item.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
