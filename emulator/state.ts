/** The emulator's whole persistent state, its indexes, and its atomic JSON persistence. */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { CorsConfig, CubeResources, CubeState, HeaderOverrides } from "../schema/api.js";
import type { AuditRow } from "./index.js";
import { StateIndex } from "./indexes.js";

export type KeyRole = "owner" | "read_only";

export interface SpaceRecord {
  id: string;
  name: string;
  tier: string;
  createdAt: string;
}

/** An API key, stored only as its sha256 hash. */
export interface KeyRecord {
  id: string;
  hash: string;
  spaceId: string;
  role: KeyRole;
}

export interface CubeRecord {
  id: string;
  spaceId: string;
  name: string;
  state: CubeState;
  image: string;
  sshUser: string;
  region: string;
  resources: CubeResources;
  sshPublicKey: string;
  userData: string | null;
  terminationProtection: boolean;
  terminationProtectionChangedAt: string | null;
  terminationProtectionChangedBy: string | null;
  /** False while pending: no server is assigned yet (no host, no public IPv4). */
  hasServer: boolean;
  /** Host keys are "captured" the first time the cube is running. */
  hostKeyCaptured: boolean;
  deleting: boolean;
  restarting: boolean;
  /** Bumped by every state-changing operation; scheduled transitions of an older epoch are dropped. */
  epoch: number;
  /**
   * The emulated server (1, 2, …) the cube is placed on; its TCP mappings take host ports from
   * that server's pool (emulator/servers.ts). Absent in older state files: placed on load.
   */
  server: number;
  createdAt: string;
  updatedAt: string;
}

export interface TcpRecord {
  id: string;
  spaceId: string;
  cubeId: string;
  cubePort: number;
  hostPort: number;
  label: string | null;
  status: string;
  isSsh: boolean;
  udpEnabled: boolean;
  whitelistedIps: { id: string; cidr: string }[];
  createdAt: string;
  updatedAt: string;
}

export interface DomainRecord {
  id: string;
  spaceId: string;
  cubeId: string;
  domain: string;
  port: number;
  status: string;
  isWildcard: boolean;
  /** Random token used in the ownership TXT value and the ACME delegation target. */
  token: string;
  securityHeadersMode: "enforced" | "app_managed";
  responseHeaderTimeoutSecs: number;
  responseHeaderOverrides: HeaderOverrides | null;
  requestHeaderOverrides: HeaderOverrides | null;
  maxRequestBodyMb: number | null;
  responseCompression: boolean;
  ipAllowList: string[] | null;
  ipDenyList: string[] | null;
  basicAuthUser: string | null;
  /** scrypt hash; the password itself is never stored nor returned. */
  basicAuthPasswordHash: string | null;
  corsConfig: CorsConfig | null;
  originScheme: "http" | "https";
  proxyProtocol: "v1" | "v2" | null;
  createdAt: string;
  updatedAt: string;
}

export interface SnapshotRecord {
  id: string;
  spaceId: string;
  cubeId: string;
  name: string;
  sizeBytes: number | null;
  status: "pending" | "complete";
  kind: string;
  createdAt: string;
}

export interface WebhookRecord {
  id: string;
  spaceId: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  /** Kept to sign deliveries; returned only in the create response. */
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryRecord {
  id: string;
  spaceId: string;
  webhookId: string;
  event: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastAttemptAt: string | null;
  responseStatus: number | null;
  createdAt: string;
  /** The exact JSON body sent on every attempt (the signature covers these bytes). */
  payload: string;
}

export interface IdempotencyRecord {
  spaceId: string;
  key: string;
  /** method, path and body of the first request; a reuse with another request is refused. */
  fingerprint: string;
  status: number;
  body: unknown;
  /** Emulated ms when stored. */
  storedAt: number;
}

export type DnsType = "CNAME" | "TXT" | "A";
export interface DnsEntry {
  type: DnsType;
  host: string;
  value: string;
}

export type JobPayload =
  | { kind: "cube-state"; cubeId: string; epoch: number; to: CubeState }
  | { kind: "cube-gone"; cubeId: string }
  | { kind: "snapshot-complete"; snapshotId: string }
  | { kind: "ssh-port-active"; mappingId: string }
  | { kind: "delivery-attempt"; deliveryId: string };
export type Job = JobPayload & { id: number; at: number };

export interface StateData {
  version: 1;
  initialSpaceId: string;
  /** Emulated time at the last save, so the clock never runs backwards across restarts. */
  clockNow: number;
  nextJobId: number;
  /** No longer read (each emulated server has its own pool, rebuilt on load); kept for older readers. */
  nextHostPort: number;
  spaces: Record<string, SpaceRecord>;
  keys: Record<string, KeyRecord>;
  cubes: Record<string, CubeRecord>;
  tcpMappings: Record<string, TcpRecord>;
  domains: Record<string, DomainRecord>;
  snapshots: Record<string, SnapshotRecord>;
  webhooks: Record<string, WebhookRecord>;
  deliveries: Record<string, DeliveryRecord>;
  idempotency: Record<string, IdempotencyRecord>;
  audit: AuditRow[];
  dns: { records: DnsEntry[]; unavailable: string[] };
  /** Scheduled jobs; kept in memory as a binary heap on (at, id) (emulator/jobs.ts), any order on load. */
  jobs: Job[];
}

export function emptyState(): StateData {
  return {
    version: 1,
    initialSpaceId: "",
    clockNow: 0,
    nextJobId: 1,
    nextHostPort: 30000,
    spaces: {},
    keys: {},
    cubes: {},
    tcpMappings: {},
    domains: {},
    snapshots: {},
    webhooks: {},
    deliveries: {},
    idempotency: {},
    audit: [],
    dns: { records: [], unavailable: [] },
    jobs: [],
  };
}

/** Writes are coalesced, but never more often than this… */
export const SAVE_DELAY_MIN_MS = 50;
/** …nor sooner than this many times the last write's duration after it (a big state writes rarely). */
const SAVE_DELAY_PER_WRITE_MS = 10;
const SAVE_DELAY_MAX_MS = 2_000;

/**
 * Holds the state and its indexes. With a path, the state is persisted atomically (temp file
 * + rename), but not on every change: `save()` marks it dirty and schedules one write shortly
 * after (SAVE_DELAY_MIN_MS, longer for a state whose write is slow, so that writing takes at
 * most ~10% of the time), and `flush()` writes at once. Writing the whole file per mutation
 * was O(state) per request (megabytes per create at 10,000 cubes). The emulator flushes on
 * close, and its CLI on SIGTERM/SIGINT and at process exit, so a clean stop loses nothing; a
 * crash (SIGKILL) can lose the changes of the last moments.
 */
export class Store {
  readonly index: StateIndex;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private clockNow = 0;
  private lastWriteMs = 0;

  constructor(
    public readonly data: StateData,
    private readonly path?: string,
  ) {
    this.index = new StateIndex(data);
  }

  static open(path?: string): Store {
    return new Store(path ? loadState(path) : emptyState(), path);
  }

  /** Marks the state changed at emulated time `clockNow`; the write follows shortly. */
  save(clockNow: number): void {
    if (!this.path) return;
    this.clockNow = clockNow;
    this.dirty = true;
    if (this.timer) return;
    const delay = Math.min(SAVE_DELAY_MAX_MS, Math.max(SAVE_DELAY_MIN_MS, this.lastWriteMs * SAVE_DELAY_PER_WRITE_MS));
    this.timer = setTimeout(() => this.flush(), delay);
  }

  /** Writes pending changes now (synchronously). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.path || !this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    this.data.clockNow = this.clockNow;
    writeAtomically(this.path, JSON.stringify(this.data));
    this.lastWriteMs = performance.now() - started;
  }
}

function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(temp, text);
  renameSync(temp, path);
}

function loadState(path: string): StateData {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyState();
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<StateData>;
  if (parsed.version !== 1) throw new Error(`${path}: not an emulator state file (version ${String(parsed.version)})`);
  return { ...emptyState(), ...parsed } as StateData;
}
