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
