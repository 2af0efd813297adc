// A binary min-heap over plain entries, ordered by `before`. The shard's in-memory indexes (due
// runs, job timers) keep one per order and drop stale entries lazily: an entry whose subject
// moved is skipped when it reaches the top (the caller says which entries still hold).

export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(items[index] as T, items[parent] as T)) break;
      this.swap(index, parent);
      index = parent;
    }
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Every entry, in no particular order (a rebuild filters them). */
  entries(): readonly T[] {
    return this.items;
  }

  /** Keeps only the entries `keep` accepts (a rebuild after many stale entries piled up). */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    this.items.length = 0;
    for (const item of kept) this.items.push(item);
    for (let index = (this.items.length >> 1) - 1; index >= 0; index--) this.siftDown(index);
  }

  private siftDown(start: number): void {
    const items = this.items;
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < items.length && this.before(items[left] as T, items[smallest] as T)) smallest = left;
      if (right < items.length && this.before(items[right] as T, items[smallest] as T)) smallest = right;
      if (smallest === index) return;
      this.swap(index, smallest);
      index = smallest;
    }
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    const held = items[a] as T;
    items[a] = items[b] as T;
    items[b] = held;
  }
}

/**
 * A heap whose entries can go stale: `valid` says whether one still holds. Stale entries are
 * dropped as they reach the top, and all at once when they outnumber the live ones.
 */
export class LazyHeap<T> {
  private readonly heap: MinHeap<T>;
  private pushesSinceRebuild = 0;

  constructor(
    before: (a: T, b: T) => boolean,
    private readonly valid: (item: T) => boolean,
  ) {
    this.heap = new MinHeap(before);
  }

  get rawSize(): number {
    return this.heap.size;
  }

  push(item: T): void {
    this.heap.push(item);
    this.pushesSinceRebuild += 1;
    // Every push may have made an older entry stale: rebuild once they could outnumber the live.
    if (this.pushesSinceRebuild > 1_024 && this.pushesSinceRebuild > this.heap.size / 2) {
      this.heap.retain(this.valid);
      this.pushesSinceRebuild = 0;
    }
  }

  /** The first valid entry (stale ones above it are dropped). */
  peek(): T | undefined {
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || this.valid(top)) return top;
      this.heap.pop();
    }
  }

  pop(): T | undefined {
    const top = this.peek();
    if (top !== undefined) this.heap.pop();
    return top;
  }

  /**
   * Up to `limit` valid entries from the top while `take` accepts them, in order, left in the
   * heap (they are popped and pushed back).
   */
  top(limit: number, take: (item: T) => boolean): T[] {
    const taken: T[] = [];
    while (taken.length < limit) {
      const next = this.peek();
      if (next === undefined || !take(next)) break;
      this.heap.pop();
      taken.push(next);
    }
    for (const item of taken) this.heap.push(item);
    return taken;
  }

  /** Every valid entry, in no particular order. */
  validEntries(): T[] {
    return this.heap.entries().filter(this.valid);
  }
}
