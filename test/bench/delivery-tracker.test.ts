import { describe, expect, it } from 'vitest';
import { DeliveryTracker } from '../../bench/delivery-tracker.ts';

describe('DeliveryTracker', () => {
  it('counts deliveries and the backlog of events not yet received by every subscriber', () => {
    const tracker = new DeliveryTracker(2, 8);
    tracker.onSent(0);
    tracker.onSent(1);
    expect(tracker.backlog).toBe(2);
    tracker.onDelivered(0, 0);
    expect(tracker.backlog).toBe(2);
    tracker.onDelivered(0, 0);
    expect(tracker.backlog).toBe(1);
    tracker.onDelivered(1, 0);
    tracker.onDelivered(1, 0);
    expect(tracker.backlog).toBe(0);
    expect(tracker.deliveries).toBe(4);
  });

  it('records latency only while recording', () => {
    const tracker = new DeliveryTracker(1, 8);
    tracker.onSent(0);
    tracker.onDelivered(0, 0);
    expect(tracker.latency.count).toBe(0);
    tracker.startRecording();
    tracker.onSent(1);
    tracker.onDelivered(1, 0);
    expect(tracker.latency.count).toBe(1);
  });

  it('wakes the writer once the backlog falls below the bound', async () => {
    const tracker = new DeliveryTracker(1, 8);
    for (let index = 0; index < 4; index++) tracker.onSent(index);
    let woken = false;
    const waiting = tracker.waitForBacklogBelow(3).then(() => (woken = true));
    tracker.onDelivered(0, 0);
    await Promise.resolve();
    expect(woken).toBe(false);
    tracker.onDelivered(1, 0);
    await waiting;
    expect(woken).toBe(true);
  });

  it('refuses a backlog beyond its capacity', () => {
    const tracker = new DeliveryTracker(1, 2);
    tracker.onSent(0);
    tracker.onSent(1);
    expect(() => tracker.onSent(2)).toThrow(/capacity/);
  });
});
