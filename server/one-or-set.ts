/**
 * A set of members that is usually one: the member itself while there is one, a `Set` once a second one arrives,
 * the member again when the set is back to one, undefined when empty. A session watched by one connection (the
 * common case) then costs no `Set` and no hash table (about 150 bytes) in each per-session registry. Members keep
 * their insertion order, as in a `Set`. A member must never be a `Set` itself.
 */
export type OneOrSet<T extends object> = T | Set<T> | undefined;

/** `members` with `member` added (a member already there stays where it is). */
export function addMember<T extends object>(members: OneOrSet<T>, member: T): T | Set<T> {
  if (members === undefined || members === member) return member;
  if (members instanceof Set) return members.add(member);
  return new Set([members, member]);
}

/** `members` without `member` (the same value when it was not there). */
export function removeMember<T extends object>(members: OneOrSet<T>, member: T): OneOrSet<T> {
  if (members === member) return undefined;
  if (!(members instanceof Set) || !members.delete(member)) return members;
  if (members.size !== 1) return members.size === 0 ? undefined : members;
  const [only] = members;
  return only;
}

export function hasMember<T extends object>(members: OneOrSet<T>, member: T): boolean {
  return members === member || (members instanceof Set && members.has(member));
}

export function memberCount<T extends object>(members: OneOrSet<T>): number {
  if (members === undefined) return 0;
  return members instanceof Set ? members.size : 1;
}

/**
 * The members now, for a loop whose callbacks may add or remove members (they do not change the loop): the member
 * itself in a one-element array, or a copy of the set.
 */
export function membersOf<T extends object>(members: OneOrSet<T>): readonly T[] {
  if (members === undefined) return [];
  return members instanceof Set ? [...members] : [members];
}
