/** First in, first out, with an O(1) shift: the array is cut down only once most of it is shifted out. */
export class Queue<T> {
  private head = 0;

  constructor(private items: T[] = []) {}

  get size(): number {
    return this.items.length - this.head;
  }

  first(): T | undefined {
    return this.items[this.head];
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): void {
    if (this.size === 0) return;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
