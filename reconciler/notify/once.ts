/** Keys already told, bounded: the oldest is forgotten first. */
export class OncePer {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 1000) {}

  /** True the first time a key is given (until it is forgotten). */
  first(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}
