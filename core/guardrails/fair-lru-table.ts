/**
 * A bounded in-memory map from 53-bit ids to entries, each entry belonging to an owner, with fair
 * eviction: the mutable, O(1)-per-call counterpart of bounded-table.ts `putEntryFair` for state that lives
 * in one process (the relay's in-line loop check) rather than in a stored item. When a new id does not
 * fit, the entry evicted is the least recently used one of the owner holding the most entries (the new
 * entry's owner counted with it; ties go to the owner whose least recent entry is oldest), so an owner that
 * opens ids without end evicts only its own, never another owner's while it holds more than that owner.
 *
 * Recency is insertion order (a `set` moves the id to the end), so no clock is needed. Pure: no I/O.
 */

const { max } = Math;

export class FairLruTable<E> {
  private readonly entries = new Map<number, E>();
  /** Every id's owner, least recently set first (the global recency order). */
  private readonly order = new Map<number, number>();
  /**
   * Each owner's ids, least recently set first, with the stamp of their last set (the tie-break between
   * owners holding as many).
   */
  private readonly byOwner = new Map<number, Map<number, number>>();
  /** Owners holding two entries or more (none: every owner holds one, and the oldest entry goes). */
  private crowded = 0;
  private clock = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(id: number): E | undefined {
    return this.entries.get(id);
  }

  /** Stores `entry` under `id` for `owner` (most recent), evicting fairly when a new id does not fit. */
  set(id: number, owner: number, entry: E): void {
    const known = this.order.get(id);
    if (known === owner) {
      // The common case, an update: the id moves to the most recent end of both orders.
      const ids = this.byOwner.get(owner) as Map<number, number>;
      ids.delete(id);
      ids.set(id, ++this.clock);
      this.order.delete(id);
      this.order.set(id, owner);
      this.entries.set(id, entry);
      return;
    }
    if (known !== undefined) this.delete(id);
    else if (this.entries.size >= max(1, this.capacity)) this.evictFor(owner);
    this.entries.set(id, entry);
    this.order.set(id, owner);
    let ids = this.byOwner.get(owner);
    if (ids === undefined) this.byOwner.set(owner, (ids = new Map()));
    ids.set(id, ++this.clock);
    if (ids.size === 2) this.crowded++;
  }

  delete(id: number): boolean {
    const owner = this.order.get(id);
    if (owner === undefined) return false;
    this.entries.delete(id);
    this.order.delete(id);
    const ids = this.byOwner.get(owner) as Map<number, number>;
    ids.delete(id);
    if (ids.size === 1) this.crowded--;
    else if (ids.size === 0) this.byOwner.delete(owner);
    return true;
  }

  /** The ids `owner` holds, least recently set first. */
  idsOf(owner: number): number[] {
    return [...(this.byOwner.get(owner)?.keys() ?? [])];
  }

  /** Removes every entry of `owner`. */
  deleteOwner(owner: number): void {
    const ids = this.byOwner.get(owner);
    if (ids === undefined) return;
    for (const id of [...ids.keys()]) this.delete(id);
  }

  private evictFor(newOwner: number): void {
    const own = (this.byOwner.get(newOwner)?.size ?? 0) + 1;
    let victim: number | undefined;
    if (own > 1 && 2 * own > this.entries.size + 1) {
      // Holding more than everyone else together: the new owner is the largest (a flood's O(1) path).
      victim = newOwner;
    } else if (this.crowded === 0) {
      // Every owner holds one entry (the new owner, if it holds one, would hold two: the largest then).
      victim = own > 1 ? newOwner : (this.order.values().next().value as number);
    } else {
      let victimHeld = 0;
      let victimStamp = 0;
      for (const [owner, ids] of this.byOwner) {
        const held = owner === newOwner ? own : ids.size;
        const oldest = ids.values().next().value as number;
        if (victim === undefined || held > victimHeld || (held === victimHeld && oldest < victimStamp)) {
          victim = owner;
          victimHeld = held;
          victimStamp = oldest;
        }
      }
    }
    const ids = victim === undefined ? undefined : this.byOwner.get(victim);
    if (ids !== undefined) this.delete(ids.keys().next().value as number);
  }
}
