/**
 * The admission queue's parts: an intrusive doubly linked FIFO (O(1) push, pop
 * and removal of an aborted waiter from anywhere), one per (priority, tenant)
 * lane (see scheduler.ts), and min-heaps: of deadlines, so one timer serves the
 * earliest `maxWaitMs` however long the queue is, and of a class's lanes.
 */

/** What the FIFO needs on each entry. */
export interface LinkedEntry<T> {
  prev: T | undefined;
  next: T | undefined;
}

/** What the deadline heap needs on each entry. */
export interface DeadlineEntry extends HeapEntry {
  /** Monotonic ms by which the entry must be admitted; `Infinity` for none. */
  deadline: number;
}

/** FIFO of entries, linked through the entries themselves. */
export class Fifo<T extends LinkedEntry<T>> {
  head: T | undefined;
  private tail: T | undefined;
  size = 0;

  push(entry: T): void {
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    this.size++;
  }

  /** Puts `entry` at the head: a retry keeps its place ahead of later arrivals. */
  unshift(entry: T): void {
    entry.prev = undefined;
    entry.next = this.head;
    if (this.head) this.head.prev = entry;
    else this.tail = entry;
    this.head = entry;
    this.size++;
  }

  remove(entry: T): void {
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    this.size--;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let entry = this.head; entry; entry = entry.next) yield entry;
  }
}

/** What a {@link Heap} needs on each entry. */
export interface HeapEntry {
  /** Position in the heap; -1 when not in it. */
  heapIndex: number;
}

/** Binary min-heap by `before`, with removal by the index kept in each entry. */
export class Heap<T extends HeapEntry> {
  private readonly items: T[] = [];

  constructor(
    /** Whether `a` comes out before `b`. */
    private readonly before: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** The entry that comes out first. */
  get top(): T | undefined {
    return this.items[0];
  }

  push(entry: T): void {
    entry.heapIndex = this.items.length;
    this.items.push(entry);
    this.up(entry.heapIndex);
  }

  remove(entry: T): void {
    const i = entry.heapIndex;
    if (i < 0) return;
    const last = this.items.pop()!;
    entry.heapIndex = -1;
    if (i === this.items.length) return;
    this.items[i] = last;
    last.heapIndex = i;
    this.down(i);
    this.up(last.heapIndex);
  }

  /** `entry`'s key changed: puts it back in its place. */
  update(entry: T): void {
    this.down(entry.heapIndex);
    this.up(entry.heapIndex);
  }

  /** Empties the heap. */
  clear(): void {
    for (const entry of this.items) entry.heapIndex = -1;
    this.items.length = 0;
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.items[Symbol.iterator]();
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i]!, items[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && this.before(items[left]!, items[least]!)) least = left;
      if (right < items.length && this.before(items[right]!, items[least]!)) least = right;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    const entryA = items[a]!;
    const entryB = items[b]!;
    items[a] = entryB;
    items[b] = entryA;
    entryA.heapIndex = b;
    entryB.heapIndex = a;
  }
}

/** Binary min-heap on `deadline`: one timer serves the earliest. */
export class DeadlineHeap<T extends DeadlineEntry> extends Heap<T> {
  constructor() {
    super((a, b) => a.deadline < b.deadline);
  }

  get earliest(): T | undefined {
    return this.top;
  }
}
