import { Fragment } from 'preact';
import type { Watcher } from '../../client/index.ts';

/** The watchers shown by name when there are at most this many (all of them are in the tooltip). */
const MAX_NAMED = 6;

/**
 * A watcher as text: its authenticated subject and node first; the label, which the subscribing client chose
 * itself (`subscribe({ label })`) and nobody verified, after it and marked as such:
 * `mallory @ node-1, label "alice (admin)"`.
 */
export function watcherText(watcher: Watcher): string {
  const who = `${watcher.subject} @ ${watcher.node}`;
  return watcher.label === undefined ? who : `${who}, label ${JSON.stringify(watcher.label)}`;
}

function WatcherName({ watcher }: { watcher: Watcher }) {
  return (
    <span class="watcher" data-testid="watcher" data-subject={watcher.subject}>
      <span class="subject">{watcher.subject}</span> @ {watcher.node}
      {watcher.label !== undefined && (
        <span class="watcher-label" title="chosen by the client, not verified">
          , label {JSON.stringify(watcher.label)}
        </span>
      )}
    </span>
  );
}

/** "N watching", and who: by subject (what the token says), with each self-chosen label as secondary text. */
export function Watchers({ watchers }: { watchers: readonly Watcher[] }) {
  return (
    <span class="watchers" data-testid="watchers" title={watchers.map(watcherText).join('\n')}>
      {watchers.length} watching
      {watchers.length > 0 && watchers.length <= MAX_NAMED && (
        <span class="muted">
          {' ('}
          {watchers.map((watcher, index) => (
            <Fragment key={watcher.id}>
              {index > 0 && '; '}
              <WatcherName watcher={watcher} />
            </Fragment>
          ))}
          {')'}
        </span>
      )}
    </span>
  );
}
