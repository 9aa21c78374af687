/**
 * A fixed-capacity FIFO of events. When full, a new item overwrites the oldest one and the drop is
 * counted; the count is reported to the backend with the next successful flush (`droppedEvents`).
 * Memory is bounded by the capacity whatever the traffic and whatever the backend does.
 */
export class RingBuffer<T> {
  readonly #slots: Array<T | undefined>;
  #head = 0;
  #count = 0;
  /** Drops not yet reported to the backend. */
  #unreported = 0;
  /** Drops since creation. */
  #total = 0;

  constructor(readonly capacity: number) {
    this.#slots = new Array<T | undefined>(capacity);
  }

  /** Items currently held. */
  get size(): number {
    return this.#count;
  }

  /** Drops not yet reported. */
  get droppedUnreported(): number {
    return this.#unreported;
  }

  /** Drops since creation. */
  get droppedTotal(): number {
    return this.#total;
  }

  /** Appends an item; when full, the oldest item is dropped and counted. */
  push(item: T): void {
    const cap = this.capacity;
    if (this.#count < cap) {
      this.#slots[(this.#head + this.#count) % cap] = item;
      this.#count++;
      return;
    }
    this.#slots[this.#head] = item;
    this.#head = (this.#head + 1) % cap;
    this.#drop(1);
  }

  /** Removes and returns up to `n` of the oldest items. */
  take(n: number): T[] {
    const out: T[] = [];
    const cap = this.capacity;
    while (out.length < n && this.#count > 0) {
      out.push(this.#slots[this.#head] as T);
      this.#slots[this.#head] = undefined;
      this.#head = (this.#head + 1) % cap;
      this.#count--;
    }
    return out;
  }

  /**
   * Puts items taken earlier back in front of the newer ones (a flush that failed). Where they no longer
   * fit, the oldest of them are dropped and counted.
   */
  requeue(items: readonly T[]): void {
    const cap = this.capacity;
    const room = cap - this.#count;
    const keep = items.length > room ? items.slice(items.length - room) : items;
    this.#drop(items.length - keep.length);
    for (let i = keep.length - 1; i >= 0; i--) {
      this.#head = (this.#head - 1 + cap) % cap;
      this.#slots[this.#head] = keep[i];
      this.#count++;
    }
  }

  /** Returns and resets the unreported drop count (restore it with {@link restoreDropped} on failure). */
  takeDropped(): number {
    const n = this.#unreported;
    this.#unreported = 0;
    return n;
  }

  /** Adds back a drop count whose report did not reach the backend. */
  restoreDropped(n: number): void {
    this.#unreported += n;
  }

  #drop(n: number): void {
    if (n <= 0) return;
    this.#unreported += n;
    this.#total += n;
  }
}
