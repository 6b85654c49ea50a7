import { randomUUID } from 'node:crypto';

/** A new random epoch: a random (v4) UUID, the same form on both engines. */
export function newEpoch(): string {
  // randomUUID draws from a cached entropy pool: a commit passes a candidate epoch every time, and randomBytes()
  // per call showed up in the append profile.
  return randomUUID();
}
