/**
 * A bounded, copy-on-write map from 53-bit ids to small JSON entries, stored as two parallel
 * arrays (plain JSON, compact, and `indexOf` over a packed number array is fast). When full,
 * the entry seen least recently is evicted (LRU by last-seen time). Updates never mutate the
 * table they are given: they copy the arrays (a few hundred references, ~100 ns), which keeps
 * every layer step pure without the cost of copying a dictionary-mode object.
 */

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { max } = Math;

export interface BoundedTable<E> {
  readonly ids: readonly number[];
  readonly entries: readonly E[];
}

export function emptyTable<E>(): BoundedTable<E> {
  return { ids: [], entries: [] };
}

/** Index of `id` in the table, or -1. */
export function indexOfId<E>(table: BoundedTable<E>, id: number): number {
  return table.ids.indexOf(id);
}

/**
 * A new table with `entry` stored under `id`. `index` is `indexOfId(table, id)` (the caller
 * has usually computed it already). When a new id does not fit in `capacity`, the entries with
 * the smallest `lastSeen` are evicted first.
 */
export function putEntry<E>(
  table: BoundedTable<E>,
  index: number,
  id: number,
  entry: E,
  capacity: number,
  lastSeen: (entry: E) => number,
): BoundedTable<E> {
  if (index >= 0 && table.entries.length <= capacity) {
    const entries = table.entries.slice();
    entries[index] = entry;
    return { ids: table.ids, entries };
  }
  const ids = table.ids.slice();
  const entries = table.entries.slice();
  if (index >= 0) {
    entries[index] = entry;
  } else {
    ids.push(id);
    entries.push(entry);
  }
  while (entries.length > max(1, capacity)) {
    let victim = -1;
    let oldest = 0;
    for (let i = 0; i < entries.length; i++) {
      if (ids[i] === id) continue;
      const seen = lastSeen(entries[i] as E);
      if (victim < 0 || seen < oldest) {
        oldest = seen;
        victim = i;
      }
    }
    if (victim < 0) break;
    ids.splice(victim, 1);
    entries.splice(victim, 1);
  }
  return { ids, entries };
}

/**
 * {@link putEntry} with fair eviction between owners (issue 19.6): when the table is full, the entry
 * evicted belongs to the owner holding the most entries (the least recently seen of them), so one owner
 * that opens many ids (an API key naming a new session per call) evicts only its own and never another
 * owner's state while it holds more than that owner. Entries whose owner is unknown (`undefined`, state
 * written before owners were kept) count as one owner of their own each.
 */
export function putEntryFair<E>(
  table: BoundedTable<E>,
  index: number,
  id: number,
  entry: E,
  capacity: number,
  lastSeen: (entry: E) => number,
  ownerOf: (entry: E) => number | undefined,
): BoundedTable<E> {
  if (index >= 0 || table.entries.length < max(1, capacity)) {
    return putEntry(table, index, id, entry, capacity, lastSeen);
  }
  const held = new Map<number, number>();
  for (const e of table.entries) {
    const owner = ownerOf(e);
    if (owner !== undefined) held.set(owner, (held.get(owner) ?? 0) + 1);
  }
  const newOwner = ownerOf(entry);
  if (newOwner !== undefined) held.set(newOwner, (held.get(newOwner) ?? 0) + 1);
  let victim = -1;
  let victimHeld = 0;
  let victimSeen = 0;
  for (let i = 0; i < table.entries.length; i++) {
    const e = table.entries[i] as E;
    const owner = ownerOf(e);
    const count = owner === undefined ? 1 : (held.get(owner) ?? 1);
    const seen = lastSeen(e);
    if (victim < 0 || count > victimHeld || (count === victimHeld && seen < victimSeen)) {
      victim = i;
      victimHeld = count;
      victimSeen = seen;
    }
  }
  const ids = table.ids.slice();
  const entries = table.entries.slice();
  ids.splice(victim, 1);
  entries.splice(victim, 1);
  ids.push(id);
  entries.push(entry);
  return { ids, entries };
}
