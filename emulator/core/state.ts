/** The shape of the persistent state (store.ts); a record shown as stored extends the API's type with what is kept beside it. */
import type { Cube, DnsRecord, Domain, Snapshot, Space, TcpMapping, Webhook, WebhookDelivery } from "../../schema/api.js";
import type { AuditRow } from "../types.js";

export type KeyRole = "owner" | "read_only";

export type SpaceRecord = Space;

/** An API key, stored only as its sha256 hash. */
export interface KeyRecord {
  id: string;
  hash: string;
  spaceId: string;
  role: KeyRole;
}

/** publicIpv4, costPerHour and serverDomain are worked out when the cube is shown. */
export interface CubeRecord extends Omit<Cube, "publicIpv4" | "costPerHour" | "serverDomain"> {
  spaceId: string;
  region: string;
  sshPublicKey: string;
  userData: string | null;
  /** False while pending: no server is assigned yet (no host, no public IPv4). */
  hasServer: boolean;
  /** Host keys are "captured" the first time the cube is running. */
  hostKeyCaptured: boolean;
  deleting: boolean;
  restarting: boolean;
  /** Bumped by every state-changing operation; scheduled transitions of an older epoch are dropped. */
  epoch: number;
  /** The emulated server (1, 2, …) whose port pool its mappings use (core/servers.ts); absent in older files: placed on load. */
  server: number;
  createdAt: string;
  updatedAt: string;
}

/** `host` is the cube's, when it has a server. */
export interface TcpRecord extends Omit<TcpMapping, "host"> {
  spaceId: string;
  createdAt: string;
  updatedAt: string;
}

/** Every setting of the API's Domain is stored; the fields worked out when it is shown are not. */
export interface DomainRecord
  extends Required<Omit<Domain, "ingressStatus" | "basicAuthEnabled" | "wildcardCertState" | "acmeDelegationTarget">> {
  spaceId: string;
  port: number;
  /** Random token used in the ownership TXT value and the ACME delegation target. */
  token: string;
  /** scrypt hash; the password itself is never stored nor returned. */
  basicAuthPasswordHash: string | null;
}

export interface SnapshotRecord extends Snapshot {
  spaceId: string;
  status: "pending" | "complete";
}

export interface BackupRecord {
  id: string;
  spaceId: string;
  name: string;
  status: "pending" | "complete" | "failed";
  originalCubeId: string | null;
  originalCubeName: string | null;
  sizeBytes: number;
  diskSizeGb: number | null;
  config: {
    vcpus: number;
    ramMb: number;
    diskLimitGb: number;
    imageId: string;
    regionId: string | null;
    regionName: string | null;
    domains: string[];
    tcpPorts: number[];
  } | null;
  sharedFromBackupId: string | null;
  redeployedCubeId: string | null;
  completedAt: string | null;
  createdAt: string;
  /** Seed of the archive's bytes (resources/archive.ts); a shared copy keeps its source's. */
  contentSeed: string;
}

export interface ShareRecord {
  id: string;
  status: "pending" | "accepted" | "declined" | "canceled";
  backupId: string;
  backupName: string;
  sourceSpaceId: string;
  destinationSpaceId: string;
  /** The key that raised the share (it may cancel it). */
  raisedByKeyId: string;
  copyBackupId: string | null;
  /** Emulated ms. */
  expiresAtMs: number;
  createdAt: string;
}

export interface ImportPart {
  etag: string;
  sizeBytes: number;
}

export interface ImportRecord {
  id: string;
  spaceId: string;
  name: string;
  status: "uploading" | "finalizing" | "provisioning" | "complete" | "failed" | "expired" | "canceled";
  fileSizeBytes: number;
  chunkSizeBytes: number;
  partCount: number;
  /** Uploaded parts by part number (the bytes themselves are not kept). */
  parts: Record<string, ImportPart>;
  sshKeyMode: "replace" | "keep";
  sshPublicKey: string | null;
  region: string | null;
  userData: string | null;
  cubeId: string | null;
  error: string | null;
  /** Emulated ms after which parts are refused and the import can no longer complete. */
  expiresAtMs: number;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface DeviceLoginRecord {
  /** sha256 of the device code (the code itself is returned once and never kept). */
  deviceCodeHash: string;
  userCode: string;
  status: "pending" | "approved" | "denied" | "consumed";
  /** The space an approval scopes the new key to. */
  spaceId: string | null;
  expiresAtMs: number;
}

export interface WebhookRecord extends Webhook {
  spaceId: string;
  description: string | null;
  /** Kept to sign deliveries; returned only in the create response. */
  secret: string;
}

export interface DeliveryRecord extends WebhookDelivery {
  spaceId: string;
  webhookId: string;
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

export type DnsType = DnsRecord["type"];
export interface DnsEntry {
  type: DnsType;
  host: string;
  value: string;
}

/** A scheduled job: `kind` names a type its resource registers (core/resource.ts defineJob); the rest is its payload. */
export interface Job {
  id: number;
  /** Emulated ms when it is due. */
  at: number;
  kind: string;
  [field: string]: unknown;
}

const table = <T>(): Record<string, T> => ({});

/** The state of a new emulator; its type is the state file's shape (StateData). */
export function emptyState() {
  return {
    version: 1 as const,
    initialSpaceId: "",
    /** Emulated time at the last save, so the clock never runs backwards across restarts. */
    clockNow: 0,
    nextJobId: 1,
    /** No longer read (each emulated server has its own pool, rebuilt on load); kept for older readers. */
    nextHostPort: 30000,
    spaces: table<SpaceRecord>(),
    keys: table<KeyRecord>(),
    cubes: table<CubeRecord>(),
    tcpMappings: table<TcpRecord>(),
    domains: table<DomainRecord>(),
    snapshots: table<SnapshotRecord>(),
    backups: table<BackupRecord>(),
    backupShares: table<ShareRecord>(),
    /** Backups a space may still hold (absent: no limit); set on the admin surface. */
    backupAllowance: table<number>(),
    imports: table<ImportRecord>(),
    deviceLogins: table<DeviceLoginRecord>(),
    webhooks: table<WebhookRecord>(),
    deliveries: table<DeliveryRecord>(),
    idempotency: table<IdempotencyRecord>(),
    audit: [] as AuditRow[],
    dns: { records: [] as DnsEntry[], unavailable: [] as string[] },
    /** Scheduled jobs; kept in memory as a binary heap on (at, id) (core/jobs.ts), any order on load. */
    jobs: [] as Job[],
  };
}

export type StateData = ReturnType<typeof emptyState>;
