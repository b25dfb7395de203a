/** A set that remembers only its last `capacity` insertions (FIFO eviction). */
export class RecentSet<T> {
  readonly #capacity: number;
  readonly #members = new Set<T>();
  readonly #order: T[] = [];
  #head = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#members.size;
  }

  has(value: T): boolean {
    return this.#members.has(value);
  }

  add(value: T): void {
    if (this.#members.has(value)) return;
    if (this.#order.length < this.#capacity) {
      this.#order.push(value);
    } else {
      if (this.#capacity === 0) return;
      this.#members.delete(this.#order[this.#head]!);
      this.#order[this.#head] = value;
      this.#head = (this.#head + 1) % this.#capacity;
    }
    this.#members.add(value);
  }
}
