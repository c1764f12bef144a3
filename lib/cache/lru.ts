/**
 * A bounded least-recently-used map: at most `maxEntries` entries and `maxWeight` in total (each
 * entry weighs what `weigh` says, e.g. its characters). The least recently read entries go first.
 * An entry heavier than `maxWeight` alone is not kept.
 */
export class BoundedLru<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private weight = 0;

  constructor(private readonly limits: { maxEntries: number; maxWeight: number; weigh: (value: V) => number }) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.limits.weigh(value);
    if (weight > this.limits.maxWeight) return;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.weight <= this.limits.maxWeight) break;
      this.delete(oldest);
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  /** Removes every entry `drop` picks; answers how many. */
  deleteWhere(drop: (value: V, key: K) => boolean): number {
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (!drop(entry.value, key)) continue;
      this.delete(key);
      removed += 1;
    }
    return removed;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get totalWeight(): number {
    return this.weight;
  }
}
