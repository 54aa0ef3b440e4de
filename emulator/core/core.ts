/**
 * The machinery every resource uses: state, clock, scheduler, events, limits, request log. It names no resource
 * nor job kind: resources register their jobs and subscribe to events before start().
 */
import type { EmulatorOptions, ImageFault, RequestLogEntry } from "../types.js";
import { addKey, ensureSpace } from "./auth.js";
import { EmulatedClock } from "./clock.js";
import { EventBus } from "./events.js";
import { FaultList } from "./faults.js";
import { isoAt } from "./ids.js";
import type { StateIndex } from "./indexes.js";
import { Scheduler } from "./jobs.js";
import { Presigner } from "./presign.js";
import { RateLimiter } from "./ratelimit.js";
import type { Job, StateData } from "./state.js";
import { Store } from "./store.js";
import { sleep } from "../../system/time.js";

const REQUEST_LOG_MAX = 10_000;

export class Core {
  readonly store: Store;
  readonly clock: EmulatedClock;
  readonly scheduler: Scheduler;
  readonly events = new EventBus();
  readonly rateLimiter = new RateLimiter();
  readonly faults = new FaultList();
  readonly presigner = new Presigner();
  /** Bytes per second each storage stream is held to (admin: tests of interrupted transfers); null: as fast as it goes. */
  storageBytesPerSecond: number | null = null;
  /** Images whose cubes never become healthy (admin: tests and demos of a rollout's revert): their boot ends in `error`, or never ends. */
  readonly imageFaults = new Map<string, ImageFault>();
  readonly defaultPageSize: number;
  readonly spaceId: string;
  readonly apiKey: string;
  /** Webhook deliveries go to any address, not only to loopback ones. */
  readonly deliverAnywhere: boolean;
  /** The request log; may hold up to twice REQUEST_LOG_MAX entries before it is trimmed. */
  private log: RequestLogEntry[] = [];
  /** Every /api/v1 request since start (or the last clearRequests), by method. */
  private counts: Record<string, number> = {};
  private closed = false;
  private readonly closing = new AbortController();
  private readonly jobRunners = new Map<string, (job: Job) => void>();

  constructor(options: EmulatorOptions = {}) {
    this.store = new Store(options.statePath);
    this.clock = new EmulatedClock(options.clockSpeed ?? 1, this.store.data.clockNow);
    this.scheduler = new Scheduler(
      this.store,
      this.clock,
      (job) => this.runJob(job),
      () => this.save(),
    );
    if (options.rateLimit) this.rateLimiter.configure(options.rateLimit);
    this.defaultPageSize = checkPageSize(options.defaultPageSize ?? 20);
    this.deliverAnywhere = options.deliverAnywhere ?? false;
    const createdAt = isoAt(this.now());
    this.spaceId = ensureSpace(
      this.data,
      { id: options.spaceId ?? (this.data.initialSpaceId || undefined), name: options.spaceName },
      createdAt,
    );
    this.data.initialSpaceId = this.spaceId;
    // Keys are kept hashed: a supplied key is registered again (same hash); a generated one is new.
    this.apiKey = addKey(this.data, this.spaceId, "owner", options.apiKey);
  }

  /** Registers what jobs of `kind` do; a kind has one owner. */
  registerJob(kind: string, run: (job: Job) => void): void {
    if (this.jobRunners.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.jobRunners.set(kind, run);
  }

  /** Runs what fell due while the emulator was stopped and persists; after every registration. */
  start(): void {
    this.scheduler.runDue();
    this.save();
    this.store.flush();
  }

  /** Aborted when the emulator closes (e.g. to cancel outgoing requests in flight). */
  get closingSignal(): AbortSignal {
    return this.closing.signal;
  }

  get data(): StateData {
    return this.store.data;
  }

  get index(): StateIndex {
    return this.store.index;
  }

  now(): number {
    return this.clock.now();
  }

  /** Runs due jobs, then `fn`, then marks the state changed: a write from outside a request (admin surface, device page). */
  mutate<T>(fn: () => T): T {
    this.scheduler.runDue();
    const result = fn();
    this.save();
    return result;
  }

  /** Holds a storage stream that just moved `bytes` to the admin-set rate, if any. */
  async pace(bytes: number): Promise<void> {
    if (this.storageBytesPerSecond !== null) await sleep((bytes / this.storageBytesPerSecond) * 1000);
  }

  /** Marks the state changed; the store writes it shortly (see Store). */
  save(): void {
    if (!this.closed) this.store.save(this.now());
  }

  /** Writes pending state changes to the state file now. */
  flush(): void {
    if (!this.closed) this.store.flush();
  }

  logRequest(entry: RequestLogEntry): void {
    this.counts[entry.method] = (this.counts[entry.method] ?? 0) + 1;
    this.log.push(entry);
    // Trimmed in batches: one splice per REQUEST_LOG_MAX requests, not one per request.
    if (this.log.length >= 2 * REQUEST_LOG_MAX) this.log.splice(0, this.log.length - REQUEST_LOG_MAX);
  }

  /** The last REQUEST_LOG_MAX requests, oldest first. */
  requests(): RequestLogEntry[] {
    return this.log.slice(-REQUEST_LOG_MAX).map((entry) => ({ ...entry }));
  }

  requestCounts(): Record<string, number> {
    return { ...this.counts };
  }

  clearRequests(): void {
    this.log = [];
    this.counts = {};
  }

  close(): void {
    if (this.closed) return;
    this.save();
    this.store.flush();
    this.closed = true;
    this.scheduler.close();
    this.closing.abort();
  }

  /** A job of a kind nobody registered (e.g. from a newer state file) is dropped. */
  private runJob(job: Job): void {
    this.jobRunners.get(job.kind)?.(job);
  }
}

function checkPageSize(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > 100) throw new RangeError("defaultPageSize must be an integer between 1 and 100");
  return size;
}
