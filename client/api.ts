/** The embedded Cube API client's contract, in the desired-state file's names (vocabulary.ts): engine, reconciler and provider use this only. */
import type * as Api from "../schema/index.js";
import type * as z from "zod/mini";
import type { DownloadOptions, DownloadResult } from "./download.js";
import type { UploadOptions } from "./upload.js";
import type { AttachDomainRequest, AttachDomainResponse, CreateTcpMappingRequest, Domain, TcpMapping } from "./vocabulary.js";

export type { AttachDomainRequest, AttachDomainResponse, CreateTcpMappingRequest, Domain, TcpMapping };

/** How importArchive went: what was started, then completed (or canceled). */
export interface ImportArchiveOptions extends UploadOptions {
  idempotencyKey: string;
  /** The cube's config sent with complete (the archive is not read by the client). */
  config: Api.CompleteImportRequest["config"];
  /** Called once the import exists (before any part is sent). */
  onStarted?: (started: Api.ImportStarted) => void;
  /** On failure or Ctrl-C, leave the import in place instead of canceling it (DELETE). */
  keep?: boolean;
}

/** Options of a create: the key is minted once per operation and reused on every retry. */
export interface CreateOptions {
  idempotencyKey: string;
  /** Called when the API answered from its idempotency store (an earlier request with this key): the answer is that request's. */
  onReplayed?: () => void;
}

export interface CubePage {
  cubes: Api.Cube[];
  pagination: Api.Pagination | undefined;
}

/** Counters of what a client has sent, for reports, metrics and benchmarks. */
export interface ClientStats {
  reads: number;
  mutations: number;
  retries: number;
  rateLimited: number;
}

export interface CubeApi {
  /** The space every call is scoped to: configured, else resolved once with GET /space. */
  spaceId(): Promise<string>;
  getSpace(): Promise<Api.Space>;
  readonly stats: ClientStats;

  listRegions(): Promise<Api.Region[]>;
  listImages(): Promise<Api.Image[]>;
  getPricing(options?: { timeoutMs?: number }): Promise<Api.Pricing>;

  /** Every cube of the space. `onCubes` (optional to honour) hears each page's newly seen cubes, in page order, before the walk ends. */
  listCubes(options?: { pageSize?: number; onCubes?: (cubes: Api.Cube[]) => void }): Promise<Api.Cube[]>;
  listCubesPage(page: number, limit?: number): Promise<CubePage>;
  getCube(cubeId: string): Promise<Api.Cube>;
  createCube(body: Api.CreateCubeRequest, options: CreateOptions): Promise<Api.Cube>;
  setTerminationProtection(cubeId: string, value: boolean): Promise<Api.Cube>;
  /** Asynchronous on the server; throws TerminationProtectedError (code termination_protected) on a protected cube. */
  deleteCube(cubeId: string): Promise<void>;
  powerOff(cubeId: string): Promise<void>;
  wake(cubeId: string): Promise<void>;
  restart(cubeId: string): Promise<void>;
  getSsh(cubeId: string): Promise<Api.CubeSshInfo>;
  setSshPort(cubeId: string, cubePort: number): Promise<void>;

  listDomains(cubeId: string): Promise<Domain[]>;
  attachDomain(cubeId: string, body: AttachDomainRequest, options: CreateOptions): Promise<AttachDomainResponse>;
  patchDomain(cubeId: string, domainId: string, body: Api.PatchDomainRequest): Promise<Domain>;
  detachDomain(cubeId: string, domainId: string): Promise<void>;
  getDomainRecords(cubeId: string, domainId: string): Promise<Api.DomainRecordsView>;

  listTcpMappings(cubeId: string): Promise<TcpMapping[]>;
  createTcpMapping(cubeId: string, body: CreateTcpMappingRequest, options: CreateOptions): Promise<TcpMapping>;
  deleteTcpMapping(cubeId: string, mappingId: string): Promise<void>;

  listSnapshots(cubeId: string): Promise<Api.Snapshot[]>;
  createSnapshot(cubeId: string, body: z.infer<typeof Api.CreateSnapshotRequest>, options: CreateOptions): Promise<Api.Snapshot>;
  deleteSnapshot(cubeId: string, snapshotId: string): Promise<void>;
  /** Carries an Idempotency-Key (options', else one minted for the call), so a resend after a 5xx or a lost answer restores once. */
  restoreSnapshot(cubeId: string, snapshotId: string, options?: { idempotencyKey?: string }): Promise<void>;

  /** Newest first. */
  listBackups(): Promise<Api.Backup[]>;
  getBackup(backupId: string): Promise<Api.Backup>;
  /** A presigned URL (valid 15 minutes, needs no key) for the backup's .cube archive. */
  getBackupDownload(backupId: string): Promise<Api.BackupDownload>;
  /** Streams the archive to `file` (via FILE.part, resumed when it exists); checks the byte count. */
  downloadBackup(backupId: string, file: string, options?: DownloadOptions): Promise<DownloadResult>;
  shareBackup(backupId: string, destinationSpaceId: string, options: CreateOptions): Promise<Api.BackupShare>;
  listBackupShares(): Promise<Api.BackupShares>;
  acceptBackupShare(shareId: string): Promise<Api.AcceptedShare>;
  declineBackupShare(shareId: string): Promise<Api.BackupShare>;
  cancelBackupShare(shareId: string): Promise<Api.BackupShare>;

  /** Starts a .cube import: presigned part URLs, valid until expiresAt. */
  startImport(body: Api.CreateImportRequest, options: CreateOptions): Promise<Api.ImportStarted>;
  getImport(importId: string): Promise<Api.CubeImport>;
  /** Only while uploading (else ConflictError). */
  cancelImport(importId: string): Promise<void>;
  completeImport(importId: string, body: Api.CompleteImportRequest): Promise<Api.ImportCompleted>;
  /** Uploads `file` as a new cube: start, every part, complete; an import whose parts did not all succeed is canceled (unless `keep`), never completed. */
  importArchive(
    file: string,
    body: Omit<Api.CreateImportRequest, "fileSizeBytes">,
    options: ImportArchiveOptions,
  ): Promise<Api.ImportCompleted>;

  listWebhooks(): Promise<Api.Webhook[]>;
  createWebhook(body: Api.CreateWebhookRequest): Promise<Api.CreatedWebhook>;
  getWebhook(webhookId: string): Promise<Api.Webhook>;
  deleteWebhook(webhookId: string): Promise<void>;
  listWebhookDeliveries(webhookId: string, limit?: number): Promise<Api.WebhookDelivery[]>;
}
