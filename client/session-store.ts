import type { DerivedMessage, SessionEvent } from '../shared/events.ts';
import type { Watcher } from '../shared/protocol.ts';
import type { HubClientError } from './errors.ts';
import type { HubClient } from './hub-client.ts';
import type { Subscription } from './subscription.ts';

/**
 * Where a shared session view stands: `loading` until first caught up, `live` while following, `resyncing` when it
 * was live and is catching up again (reconnect, reset), `closed` for good (`error` says why, when it failed).
 */
export type SessionStatus = 'loading' | 'live' | 'resyncing' | 'closed';

/** One immutable picture of a session, as the hooks and the AI SDK transport read it. */
export interface SessionSnapshot {
  /** The derived messages (a copy: it never changes once handed out). */
  readonly messages: readonly DerivedMessage[];
  /** The local copy of the log (a copy). */
  readonly events: readonly SessionEvent[];
  readonly status: SessionStatus;
  /** The last subscription error (cleared once live again); the final one when `status` is `closed`. */
  readonly error: HubClientError | undefined;
  /** Seq of the last event held (-1 before the first). */
  readonly lastSeq: number;
  /** Who watches the session (only with `presence: true`). */
  readonly presence: readonly Watcher[];
  /**
   * Seq of the hub snapshot the view starts on (`from: 'snapshot'`): `events` holds only the events after it while
   * `messages` are exact. -1 when the hub had no snapshot; undefined when the view did not start on one.
   */
  readonly snapshotSeq: number | undefined;
}

/**
 * Options of the shared subscription, applied when it is made: presence is followed when any user asked for it
 * before; the first label given names it.
 */
export interface SessionViewOptions {
  /** Follow who watches the session. Default false. */
  readonly presence?: boolean;
  /** How this subscription is named to other watchers. */
  readonly label?: string;
  /**
   * `'snapshot'`: start from the hub's projection snapshot (messages exact at once, `events` only the tail after
   * `snapshotSeq`). Default: the whole log from seq 0. Applied when any user asked for it before the shared
   * subscription is made.
   */
  readonly from?: 'snapshot';
}

/** The empty, loading picture (server rendering, no session id, before anything arrived). */
export const EMPTY_SESSION_SNAPSHOT: SessionSnapshot = Object.freeze({
  messages: Object.freeze([]) as readonly DerivedMessage[],
  events: Object.freeze([]) as readonly SessionEvent[],
  status: 'loading',
  error: undefined,
  lastSeq: -1,
  presence: Object.freeze([]) as readonly Watcher[],
  snapshotSeq: undefined,
});

/** How long a view with no user keeps its subscription (a Strict Mode remount or fast refresh takes it back). */
const RELEASE_DELAY_MS = 100;
/** The flush cadence when no animation frame is available (Node, a hidden tab): about one frame. */
const FRAME_MS = 16;

type Schedule = (flush: () => void) => () => void;

/** Coalesce to the next animation frame where the page is visible, else to a ~16 ms timer. */
const scheduleFrame: Schedule = (flush) => {
  const doc = (globalThis as { document?: { visibilityState?: string } }).document;
  if (typeof requestAnimationFrame === 'function' && doc?.visibilityState !== 'hidden') {
    const handle = requestAnimationFrame(flush);
    return () => cancelAnimationFrame(handle);
  }
  const timer = setTimeout(flush, FRAME_MS);
  return () => clearTimeout(timer);
};

/**
 * One subscription to one session of one client, shared by everyone who asks for it (`sessionView`), with an
 * immutable snapshot that changes at most once per animation frame however fast events arrive. Users `retain` it
 * while they need it; the subscription is closed a moment after the last one `release`s it, so an unmount
 * followed by a remount (React Strict Mode, fast refresh) keeps it.
 */
export class SessionView {
  readonly client: HubClient;
  readonly sessionId: string;
  #options: SessionViewOptions;
  readonly #listeners = new Set<() => void>();
  #users = 0;
  #subscription: Subscription | undefined;
  #detach: (() => void)[] = [];
  #snapshot: SessionSnapshot = EMPTY_SESSION_SNAPSHOT;
  #cancelFlush: (() => void) | undefined;
  #releaseTimer: ReturnType<typeof setTimeout> | undefined;
  #wasLive = false;
  #error: HubClientError | undefined;
  readonly #schedule: Schedule;

  /** @internal Made by `sessionView`. */
  constructor(client: HubClient, sessionId: string, options: SessionViewOptions, schedule: Schedule = scheduleFrame) {
    this.client = client;
    this.sessionId = sessionId;
    this.#options = options;
    this.#schedule = schedule;
  }

  /**
   * @internal Ask for options before the subscription is made: presence once asked for is kept; the first label
   * given names it. Asked of an open view, they wait for its next subscription.
   */
  request(options: SessionViewOptions): void {
    const presence = this.#options.presence === true || options.presence === true;
    const label = this.#options.label ?? options.label;
    const fromSnapshot = this.#options.from === 'snapshot' || options.from === 'snapshot';
    this.#options = {
      ...(presence ? { presence } : {}),
      ...(label === undefined ? {} : { label }),
      ...(fromSnapshot ? { from: 'snapshot' as const } : {}),
    };
  }

  /** The current picture (the same object until something changes). */
  getSnapshot = (): SessionSnapshot => this.#snapshot;

  /** The shared subscription (made on the first `retain`); undefined before. */
  get subscription(): Subscription | undefined {
    return this.#subscription;
  }

  /** Listen to snapshot changes (at most one call per frame); retains the view until the returned function runs. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    const release = this.retain();
    return () => {
      this.#listeners.delete(listener);
      release();
    };
  };

  /** Keep the view's subscription open until the returned function is called (idempotent). */
  retain(): () => void {
    this.#users++;
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = undefined;
    if (this.#subscription === undefined) this.#open();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#users--;
      if (this.#users === 0) this.#releaseTimer = setTimeout(() => this.#close(), RELEASE_DELAY_MS);
    };
  }

  #open(): void {
    const existing = this.client.subscriptionOf(this.sessionId);
    const subscription =
      existing ??
      this.client.subscribe(this.sessionId, {
        ...(this.#options.presence === true ? { presence: true } : {}),
        ...(this.#options.label === undefined ? {} : { label: this.#options.label }),
        ...(this.#options.from === 'snapshot' ? { from: 'snapshot' as const } : {}),
      });
    this.#subscription = subscription;
    const changed = (): void => this.#changed();
    this.#detach = [
      subscription.on('event', changed),
      subscription.on('reset', changed),
      subscription.on('presence', changed),
      subscription.on('live', () => {
        this.#wasLive = true;
        this.#error = undefined;
        this.#changed();
      }),
      subscription.on('error', (error) => {
        this.#error = error;
        this.#changed();
      }),
      subscription.on('closed', () => this.#flush()),
      this.client.on('state', changed),
    ];
    // Only a subscription of its own is closed with the view; one the application made stays its own.
    if (existing !== undefined) this.#detach.push(() => undefined);
    else this.#detach.push(() => subscription.close());
    this.#changed();
  }

  #close(): void {
    this.#releaseTimer = undefined;
    if (this.#users > 0) return;
    this.#cancelFlush?.();
    this.#cancelFlush = undefined;
    for (const detach of this.#detach) detach();
    this.#detach = [];
    this.#subscription = undefined;
    // The view stays the session's (a component may still hold it and retain it again), but holds nothing.
    this.#snapshot = EMPTY_SESSION_SNAPSHOT;
    this.#wasLive = false;
    this.#error = undefined;
  }

  #changed(): void {
    if (this.#cancelFlush !== undefined) return;
    this.#cancelFlush = this.#schedule(() => this.#flush());
  }

  #flush(): void {
    this.#cancelFlush?.();
    this.#cancelFlush = undefined;
    const subscription = this.#subscription;
    if (subscription === undefined) return;
    this.#snapshot = this.#picture(subscription);
    for (const listener of [...this.#listeners]) listener();
  }

  #picture(subscription: Subscription): SessionSnapshot {
    const previous = this.#snapshot;
    const lastSeq = subscription.lastSeq;
    const snapshotSeq = subscription.snapshotSeq;
    const sameLog =
      previous.lastSeq === lastSeq &&
      previous.events.length === subscription.events.length &&
      previous.snapshotSeq === snapshotSeq;
    return Object.freeze({
      messages: sameLog ? previous.messages : Object.freeze([...subscription.messages]),
      events: sameLog ? previous.events : Object.freeze([...subscription.events]),
      status: this.#status(subscription),
      error: this.#error,
      lastSeq,
      presence: subscription.presence,
      snapshotSeq,
    });
  }

  #status(subscription: Subscription): SessionStatus {
    if (subscription.state === 'closed') return 'closed';
    if (subscription.state === 'live' && this.client.state === 'connected') return 'live';
    return this.#wasLive ? 'resyncing' : 'loading';
  }
}

const views = new WeakMap<HubClient, Map<string, SessionView>>();

/**
 * The shared view of `sessionId` on `client`: always the same object for the same client and session (an unused one
 * holds no subscription and no events). Options asked for before its subscription is made apply to it (presence
 * and `from: 'snapshot'` when anyone asked; the first label); an open view is shared as it is. A client that already subscribed to the session itself lends that
 * subscription to the view (and keeps it).
 */
export function sessionView(client: HubClient, sessionId: string, options: SessionViewOptions = {}): SessionView {
  let byId = views.get(client);
  if (byId === undefined) {
    byId = new Map();
    views.set(client, byId);
  }
  let view = byId.get(sessionId);
  if (view === undefined) {
    view = new SessionView(client, sessionId, {});
    byId.set(sessionId, view);
  }
  view.request(options);
  return view;
}
