/** The emulator's public types (options, admin surface, request log, faults, audit rows). */
import type { Backup, DnsRecord } from "../schema/api.js";

export interface RateLimitSetting {
  /** Mutating (non-GET) requests allowed per window, per client IP. Default 10. */
  limit: number;
  /** Window length in ms. Default 60_000. */
  windowMs: number;
}

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Owner key of the initial space; generated ("kro_…") when absent. */
  apiKey?: string;
  /** Id of the initial space; generated when absent. */
  spaceId?: string;
  spaceName?: string;
  /**
   * JSON file that keeps state across restarts; writes are atomic and coalesced: within ~50 ms (longer for a large
   * state, see core/store.ts), and at once on close(), admin.flushState(), and in the CLI on SIGTERM/SIGINT and exit.
   */
  statePath?: string;
  rateLimit?: RateLimitSetting;
  /** Speed of the emulated clock for state transitions: 1 = real time, 100 = 100x faster. */
  clockSpeed?: number;
  /** Default page size of GET /spaces/{s}/cubes (default 20; max 100). */
  defaultPageSize?: number;
  /** Send webhook deliveries to any address (default false: loopback only; one elsewhere is recorded failed, nothing sent). */
  deliverAnywhere?: boolean;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  /** Path without the query, e.g. /api/v1/spaces/s/cubes */
  path: string;
  query: string;
  status: number;
  mutating: boolean;
  idempotencyKey: string | null;
  replayed: boolean;
  /** True when the API key header was present (its value is never logged). */
  authenticated: boolean;
}

export type FaultKind = "latency" | "status" | "reset" | "drop-after-commit";

export interface FaultSpec {
  kind: FaultKind;
  /** Upper-case method to match; any when absent. */
  method?: string;
  /** Regular expression source matched against the path (e.g. "/cubes$"); any when absent. */
  path?: string;
  /** How many matching requests it affects (default 1). */
  times?: number;
  /** For "status": the status to answer (e.g. 503). */
  status?: number;
  /** For "latency": extra delay in ms. */
  ms?: number;
  /** Rate-based: each matching request is hit with this probability (0..1) until cleared; `times` is ignored. */
  rate?: number;
  /** Seed of a rate-based fault's draws (the same seed, the same sequence). */
  seed?: number;
  /** For "status": answer one of these, drawn per hit (a status class, e.g. [500, 502, 503, 504]). */
  statuses?: number[];
}

/** What a cube created from a faulty image does once it boots: ends in state `error`, or stays `booting`. */
export type ImageFault = "error" | "never-running";

export interface AuditRow {
  id: string;
  at: string;
  spaceId: string;
  category: string;
  action: string;
  actorType: "user" | "admin" | "system";
  actorId: string;
  targetId: string;
  visibility: "customer" | "internal";
  /** Present only on internal rows. */
  reason?: string;
  details: Record<string, unknown>;
}

export type SystemTerminationCase =
  | "unfunded_storage_sweep"
  | "snapshot_rollback_failure"
  | "transfer_cancellation_cleanup"
  | "orphan_directory_teardown";

export interface EmulatorAdmin {
  createSpace(input?: { id?: string; name?: string }): { spaceId: string; ownerKey: string; readOnlyKey: string };
  /** Publish a DNS record in the emulated zone (replaces records of the same host and type). */
  publishDns(record: { type: DnsRecord["type"]; host: string; value: string }): void;
  removeDns(record: { type: DnsRecord["type"]; host: string }): void;
  /** Make the DNS check of a host answer "unknown" (the service could not check). */
  setDnsUnavailable(host: string, unavailable: boolean): void;
  injectFault(fault: FaultSpec): void;
  clearFaults(): void;
  setClockSpeed(speed: number): void;
  /** Moves the emulated clock forward by `ms` at once (due transitions and retries then run). */
  advanceClock(ms: number): void;
  setRateLimit(setting: RateLimitSetting): void;
  /** Operator (admin) or system-recovery termination; allowed on protected cubes, writes an internal audit row. */
  terminateCube(input: { cubeId: string; actorType: "admin" | "system"; reason: string; systemCase?: SystemTerminationCase }): void;
  /** The last 10,000 /api/v1 requests, oldest first. */
  requests(): RequestLogEntry[];
  /** Every /api/v1 request counted by method, e.g. {GET: 20100, POST: 3}, beyond the log's window. */
  requestCounts(): Record<string, number>;
  /** Empties the request log and zeroes requestCounts(). */
  clearRequests(): void;
  /** Writes pending state to the state file now (no-op without statePath). */
  flushState(): void;
  auditRows(filter?: { visibility?: "customer" | "internal"; spaceId?: string }): AuditRow[];
  /** A backup of a cube (its archive: `sizeBytes` deterministic bytes, default 8 MiB); complete unless `status` says otherwise. */
  createBackup(input: { cubeId: string; name?: string; sizeBytes?: number; status?: "pending" | "complete" | "failed" }): Backup;
  /** How many backups a space may hold (accepting a share beyond it is a 422); null: no limit. */
  setBackupAllowance(input: { spaceId: string; allowance: number | null }): void;
  /** Holds every storage stream (archive downloads, part uploads) to this many bytes per second; null: unlimited. */
  setStorageRate(bytesPerSecond: number | null): void;
  /** Cubes of `image` that boot from now on end in state `error` or never reach `running`; null: they boot normally again. */
  setImageFault(image: string, fault: ImageFault | null): void;
  /** The browser step of a CLI device login: approve (for `spaceId`, default the initial space) or deny the user code. */
  answerDeviceLogin(input: { userCode: string; spaceId?: string; approve?: boolean }): void;
}

export interface RunningEmulator {
  /** Base URL of the API, e.g. http://127.0.0.1:41234/api/v1 */
  url: string;
  /** http://127.0.0.1:41234 */
  origin: string;
  port: number;
  apiKey: string;
  spaceId: string;
  admin: EmulatorAdmin;
  close(): Promise<void>;
}
