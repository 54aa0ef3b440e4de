/**
 * Scheduled work on the emulated clock. The scheduler only orders and runs jobs; the resource owning a kind
 * registers what it does (core/resource.ts defineJob). Jobs are data in the state, so they survive restarts. Due
 * jobs run in (at, id) order, each with its own `at` as "now": the outcome depends only on emulated time passed.
 * `data.jobs` is a binary min-heap on (at, id), re-sorted on load (a sorted array is a heap): O(log jobs) per
 * job; the wake-up timer is re-armed only when a job earlier than the armed one arrives.
 */
import type { EmulatedClock } from "./clock.js";
import type { Job } from "./state.js";
import type { Store } from "./store.js";

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  /** Emulated time the armed timer wakes up for. */
  private armedAt = Infinity;
  private running = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly clock: EmulatedClock,
    private readonly run: (job: Job) => void,
    /** Called after a timer-driven run changed something (to persist it). */
    private readonly afterRun: () => void,
  ) {
    this.jobs.sort((a, b) => (earlier(a, b) ? -1 : 1));
  }

  private get jobs(): Job[] {
    return this.store.data.jobs;
  }

  /** Schedules a job of `payload.kind` with its payload fields; its id and due time are added. */
  schedule(payload: { kind: string } & Record<string, unknown>, at: number): void {
    const job: Job = { ...payload, id: this.store.data.nextJobId++, at };
    heapPush(this.jobs, job);
    if (!this.timer || at < this.armedAt) this.arm();
  }

  /** Runs every job due at the current emulated time; returns how many ran. */
  runDue(): number {
    if (this.running) return 0;
    this.running = true;
    let count = 0;
    try {
      const now = this.clock.now();
      for (let job = this.nextDue(now); job; job = this.nextDue(now)) {
        heapPop(this.jobs);
        this.run(job);
        count++;
      }
    } finally {
      this.running = false;
    }
    this.arm();
    return count;
  }

  /** Re-arms the wake-up timer, e.g. after the clock speed changed. */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    if (this.closed) return;
    const next = this.jobs[0];
    if (!next) return;
    this.armedAt = next.at;
    const delay = Math.min(this.clock.realDelayUntil(next.at) + 1, 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      if (this.runDue() > 0) this.afterRun();
    }, delay);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private nextDue(now: number): Job | undefined {
    const job = this.jobs[0];
    return job && job.at <= now ? job : undefined;
  }
}

function earlier(a: Job, b: Job): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

function heapPush(heap: Job[], job: Job): void {
  heap.push(job);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!earlier(job, heap[parent] as Job)) break;
    heap[i] = heap[parent] as Job;
    i = parent;
  }
  heap[i] = job;
}

function heapPop(heap: Job[]): Job | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || !last) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && earlier(heap[right] as Job, heap[left] as Job) ? right : left;
    if (!earlier(heap[child] as Job, last)) break;
    heap[i] = heap[child] as Job;
    i = child;
  }
  heap[i] = last;
  return top;
}
