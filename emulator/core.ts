/** The emulator's parts wired together: state, clock, scheduled jobs, deliveries, limits. */
import { addKey, ensureSpace } from "./auth.js";
import { EmulatedClock } from "./clock.js";
import { runCubeGoneJob, runCubeStateJob } from "./cubes.js";
import { DeliverySender, resumePendingDeliveries } from "./deliveries.js";
import { FaultList } from "./faults.js";
import { isoAt } from "./ids.js";
import type { EmulatorOptions, RequestLogEntry } from "./index.js";
import { Scheduler } from "./jobs.js";
import { DEFAULT_RATE_LIMIT, RateLimiter } from "./ratelimit.js";
import { runSnapshotJob } from "./snapshots.js";
import { Store, type Job, type StateData } from "./state.js";
import { runSshPortJob } from "./tcp.js";

const REQUEST_LOG_MAX = 10_000;

export class Core {
  readonly store: Store;
  readonly clock: EmulatedClock;
  readonly scheduler: Scheduler;
  readonly sender: DeliverySender;
  readonly rateLimiter: RateLimiter;
  readonly faults = new FaultList();
  readonly defaultPageSize: number;
  readonly spaceId: string;
  readonly apiKey: string;
  private log: RequestLogEntry[] = [];
  private closed = false;

  constructor(options: EmulatorOptions = {}) {
    this.store = Store.open(options.statePath);
    this.clock = new EmulatedClock(options.clockSpeed ?? 1, this.store.data.clockNow);
    this.scheduler = new Scheduler(this.store, this.clock, (job) => this.runJob(job), () => this.save());
    this.sender = new DeliverySender(this);
    this.rateLimiter = new RateLimiter();
    this.rateLimiter.configure(options.rateLimit ?? DEFAULT_RATE_LIMIT);
    this.defaultPageSize = checkPageSize(options.defaultPageSize ?? 20);
    const createdAt = isoAt(this.now());
    this.spaceId = ensureSpace(this.data, { id: options.spaceId ?? (this.data.initialSpaceId || undefined), name: options.spaceName }, createdAt);
    this.data.initialSpaceId = this.spaceId;
    // Keys are kept hashed: a supplied key is registered again (same hash); a generated one is new.
    this.apiKey = addKey(this.data, this.spaceId, "owner", options.apiKey);
    resumePendingDeliveries(this);
    this.scheduler.runDue();
    this.save();
  }

  get data(): StateData {
    return this.store.data;
  }

  now(): number {
    return this.clock.now();
  }

  save(): void {
    if (!this.closed) this.store.save(this.now());
  }

  logRequest(entry: RequestLogEntry): void {
    this.log.push(entry);
    if (this.log.length > REQUEST_LOG_MAX) this.log.splice(0, this.log.length - REQUEST_LOG_MAX);
  }

  requests(): RequestLogEntry[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  clearRequests(): void {
    this.log = [];
  }

  close(): void {
    if (this.closed) return;
    this.save();
    this.closed = true;
    this.scheduler.close();
    this.sender.close();
  }

  private runJob(job: Job): void {
    switch (job.kind) {
      case "cube-state":
        return runCubeStateJob(this, job);
      case "cube-gone":
        return runCubeGoneJob(this, job);
      case "snapshot-complete":
        return runSnapshotJob(this, job);
      case "ssh-port-active":
        return runSshPortJob(this, job);
      case "delivery-attempt":
        return this.sender.run(job);
    }
  }
}

function checkPageSize(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > 100) throw new RangeError("defaultPageSize must be an integer between 1 and 100");
  return size;
}
