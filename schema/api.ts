/**
 * zod schemas of the Cube Hosting API, the source of every API type in cubeform: the live service's OpenAPI document
 * (shared/reference/krova-openapi.json) with every rule the user's spec states. Response schemas are tolerant (fields the
 * spec does not name are optional), so both the spec's and the reference's bodies pass; request schemas are strict, because
 * the emulator validates with them and answers 400.
 */
import { z } from "zod";
import { Cidr, CubeName, domainSettingFields, Hostname, SSH_KEY_PATTERN, USER_DATA_MAX_BYTES, webhookFields } from "./common.js";
import { Domain, Pagination } from "./listed.js";

// The schemas the desired-state file shares with the API (common.ts, so loading the file's schema builds no API schema), and
// the answers every plan reads (listed.ts, read by the client's quick check): zod/mini, so z.optional(X) here, not X.optional().
export {
  Cidr,
  CorsConfig,
  CubeName,
  HeaderOverrides,
  Hostname,
  OriginScheme,
  ProxyProtocol,
  SecurityHeadersMode,
  SSH_KEY_PATTERN,
  USER_DATA_MAX_BYTES,
  WEBHOOK_EVENTS,
  WebhookEvent,
} from "./common.js";
export { Cube, CubeResources, CubeState, Domain, Image, Pagination, Pricing, PricingTier, Region, TcpMapping } from "./listed.js";

export const Timestamp = z.string();

export const Space = z.object({ id: z.string(), name: z.string(), tier: z.string(), createdAt: Timestamp });
export type Space = z.infer<typeof Space>;

// ---------------------------------------------------------------- cubes

export const SshPublicKey = z
  .string()
  .max(16384, "sshPublicKey must be at most 16384 characters")
  .regex(
    SSH_KEY_PATTERN,
    "sshPublicKey must start with ssh-ed25519, ssh-rsa, ecdsa-sha2-*, ssh-dss or sk-*@openssh.com followed by the key",
  );

export const UserData = z
  .string()
  .refine((s) => Buffer.byteLength(s, "utf8") <= USER_DATA_MAX_BYTES, "userData must be at most 16 KB (16384 bytes)");

export const ResourcesRequest = z.strictObject({
  vcpu: z.number().int("vcpu must be a whole number").min(1, "vcpu must be at least 1"),
  ramGb: z.number().int("ramGb must be a whole number").min(1, "ramGb must be at least 1"),
  diskGb: z
    .number()
    .int("diskGb must be a whole number")
    .min(10, "diskGb must be at least 10")
    .refine((n) => n % 5 === 0, "diskGb must be a multiple of 5"),
});

export const CreateCubeRequest = z.strictObject({
  name: CubeName,
  image: z.string().min(1),
  resources: ResourcesRequest,
  sshPublicKey: SshPublicKey,
  region: z.string().min(1).optional(),
  userData: UserData.optional(),
  terminationProtection: z.boolean().optional(),
});
export type CreateCubeRequest = z.infer<typeof CreateCubeRequest>;

export const PatchCubeRequest = z.strictObject({ terminationProtection: z.boolean().optional() });
export type PatchCubeRequest = z.infer<typeof PatchCubeRequest>;

export const SshPortRequest = z.strictObject({ cubePort: z.number().int().min(1).max(65535) });
export type SshPortRequest = z.infer<typeof SshPortRequest>;

export const SshPortResponse = z.object({ success: z.boolean(), cubePort: z.number().int().optional() });

export const CubeSshInfo = z.object({
  host: z.string().nullable(),
  port: z.number().int(),
  user: z.string(),
  hostKeys: z.array(z.object({ type: z.string(), key: z.string() })),
});
export type CubeSshInfo = z.infer<typeof CubeSshInfo>;

export const SuccessResponse = z.object({ success: z.boolean() });

// ---------------------------------------------------------------- domains

/** Every proxy setting the API can PATCH on a domain (the same set attach accepts). */
export const DomainSettings = z.strictObject({
  ...domainSettingFields,
  basicAuthUser: z.string().nullable().optional(),
  basicAuthPassword: z.string().optional(),
  confirmMixedProxyProtocol: z.boolean().optional(),
});
export type DomainSettings = z.infer<typeof DomainSettings>;
/**
 * The proxy settings a domain reports back as set, so a desired state can declare them and drift shows on them (basicAuthUser
 * goes with the write-only password; confirmMixedProxyProtocol is a request flag).
 */
export const DOMAIN_PROXY_SETTINGS = [
  "securityHeadersMode",
  "responseHeaderTimeoutSecs",
  "responseHeaderOverrides",
  "requestHeaderOverrides",
  "maxRequestBodyMb",
  "corsConfig",
  "originScheme",
  "responseCompression",
  "ipAllowList",
  "ipDenyList",
  "proxyProtocol",
] as const satisfies readonly (keyof DomainSettings)[];
/** Every domain setting a desired state or a Pulumi Domain declares (the password aside). */
export const DOMAIN_DECLARED_SETTINGS = [...DOMAIN_PROXY_SETTINGS, "basicAuthUser"] as const satisfies readonly (keyof DomainSettings)[];

export const AttachDomainRequest = DomainSettings.extend({
  domain: Hostname,
  port: z.number().int().min(1).max(65535),
});
export type AttachDomainRequest = z.infer<typeof AttachDomainRequest>;

export const PatchDomainRequest = DomainSettings;
export type PatchDomainRequest = z.infer<typeof PatchDomainRequest>;

export const DnsRecordType = z.enum(["CNAME", "TXT", "A"]);

export const DnsRecord = z.object({
  id: z.string(),
  type: DnsRecordType,
  host: z.string(),
  value: z.string(),
  purpose: z.string(),
  note: z.string().nullable().optional(),
  mustBeGrey: z.boolean(),
  proxyOk: z.boolean(),
});
export type DnsRecord = z.infer<typeof DnsRecord>;

/** found is the state the spec leaves unnamed; the reference names it. */
export const DnsRecordState = z.enum(["found", "missing", "mismatch", "unknown"]);
export type DnsRecordState = z.infer<typeof DnsRecordState>;

export const DnsRecordStatus = DnsRecord.extend({
  state: DnsRecordState,
  detail: z.string().optional(),
  observed: z.array(z.string()).nullable().optional(),
});
export type DnsRecordStatus = z.infer<typeof DnsRecordStatus>;

export const DomainRecordsView = z.object({
  domain: z.string().optional(),
  isWildcard: z.boolean().optional(),
  records: z.array(DnsRecordStatus),
  summary: z.object({ found: z.number().int().optional(), total: z.number().int().optional(), complete: z.boolean() }),
  checkedAt: Timestamp.optional(),
});
export type DomainRecordsView = z.infer<typeof DomainRecordsView>;

export const AttachDomainResponse = z.object({ domain: Domain, records: z.array(DnsRecord).default([]) });
export type AttachDomainResponse = z.infer<typeof AttachDomainResponse>;

// ---------------------------------------------------------------- TCP mappings

export const CreateTcpMappingRequest = z.strictObject({
  cubePort: z.number().int().min(1).max(65535),
  label: z.string().max(100).optional(),
  udpEnabled: z.boolean().optional(),
  whitelistedIps: z.array(Cidr).max(500).optional(),
  /** Deprecated alias; whitelistedIps wins when both are sent. */
  whitelistIps: z.array(Cidr).max(500).optional(),
});
export type CreateTcpMappingRequest = z.infer<typeof CreateTcpMappingRequest>;

// ---------------------------------------------------------------- snapshots

export const Snapshot = z.object({
  id: z.string(),
  cubeId: z.string(),
  name: z.string(),
  sizeBytes: z.number().int().nullable(),
  status: z.string(),
  kind: z.string(),
  createdAt: Timestamp,
});
export type Snapshot = z.infer<typeof Snapshot>;

export const CreateSnapshotRequest = z.strictObject({ name: z.string().min(1).max(128).optional() });
export const RestoreRequest = z.strictObject({ snapshotId: z.string().min(1) });

// ---------------------------------------------------------------- webhooks

export const CreateWebhookRequest = z.strictObject(webhookFields);
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  description: z.string().nullable().optional(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = Webhook.extend({ secret: z.string() });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

export const WebhookDelivery = z.object({
  id: z.string(),
  event: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  lastAttemptAt: Timestamp.nullable(),
  responseStatus: z.number().int().nullable(),
  createdAt: Timestamp,
  /** The emulator's: why a delivery failed without an attempt. */
  failureReason: z.string().optional(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

// ---------------------------------------------------------------- backups and backup sharing

/** What the backed-up cube was (live-api-facts.md §4); fields the reference's fixture names. */
export const BackupConfig = z
  .object({
    vcpus: z.number().int().optional(),
    ramMb: z.number().int().optional(),
    diskLimitGb: z.number().int().optional(),
    imageId: z.string().optional(),
    regionId: z.string().nullable().optional(),
    regionName: z.string().nullable().optional(),
    domains: z.array(z.unknown()).optional(),
    tcpPorts: z.array(z.unknown()).optional(),
  })
  .loose();
export type BackupConfig = z.infer<typeof BackupConfig>;

export const Backup = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  originalCubeId: z.string().nullable().optional(),
  originalCubeName: z.string().nullable().optional(),
  sizeBytes: z.number().int().nullable().optional(),
  diskSizeGb: z.number().nullable().optional(),
  config: BackupConfig.nullable().optional(),
  sharedFromBackupId: z.string().nullable().optional(),
  redeployedCubeId: z.string().nullable().optional(),
  completedAt: Timestamp.nullable().optional(),
  createdAt: Timestamp,
});
export type Backup = z.infer<typeof Backup>;

/** GET …/backups/{b}/download: a presigned URL (15 minutes, no key needed). */
export const BackupDownload = z.object({
  url: z.string(),
  filename: z.string(),
  sizeBytes: z.number().int().nullable(),
  expiresAt: Timestamp,
});
export type BackupDownload = z.infer<typeof BackupDownload>;

export const BackupShare = z.object({
  id: z.string(),
  status: z.string(),
  backupId: z.string(),
  backupName: z.string().nullable().optional(),
  sourceSpaceId: z.string(),
  destinationSpaceId: z.string(),
  counterpartySpaceName: z.string().nullable().optional(),
  copyBackupId: z.string().nullable().optional(),
  expiresAt: Timestamp,
  createdAt: Timestamp,
});
export type BackupShare = z.infer<typeof BackupShare>;

export const CreateShareRequest = z.strictObject({ destinationSpaceId: z.string().min(1) });

export const BackupShares = z.object({
  incoming: z.array(BackupShare).default([]),
  outgoing: z.array(BackupShare).default([]),
});
export type BackupShares = z.infer<typeof BackupShares>;

export const AcceptedShare = z.object({ share: BackupShare, backup: Backup });
export type AcceptedShare = z.infer<typeof AcceptedShare>;

// ---------------------------------------------------------------- .cube imports

export const IMPORT_MIN_BYTES = 1024 * 1024;

export const CreateImportRequest = z.strictObject({
  name: z.string().min(1).max(64),
  fileSizeBytes: z.number().int().min(IMPORT_MIN_BYTES),
  sshKeyMode: z.enum(["replace", "keep"]).default("replace"),
  sshPublicKey: z.string().nullable().optional(),
  region: z.string().nullable().optional(),
  vcpusOverride: z.number().int().min(1).nullable().optional(),
  ramMbOverride: z.number().int().min(1).nullable().optional(),
  diskGbOverride: z.number().int().min(1).nullable().optional(),
  userData: z.string().nullable().optional(),
  expectedConfig: z
    .strictObject({ vcpus: z.number().int().optional(), ramMb: z.number().int().optional(), diskLimitGb: z.number().int().optional() })
    .nullable()
    .optional(),
});
export type CreateImportRequest = z.input<typeof CreateImportRequest>;

export const ImportStarted = z.object({
  importId: z.string(),
  uploadId: z.string(),
  key: z.string(),
  chunkSizeBytes: z.number().int().positive(),
  parts: z.array(z.object({ partNumber: z.number().int().positive(), url: z.string() })),
  expiresAt: Timestamp,
});
export type ImportStarted = z.infer<typeof ImportStarted>;

export const CubeImport = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  cubeId: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable().optional(),
});
export type CubeImport = z.infer<typeof CubeImport>;

export const CompleteImportRequest = z.strictObject({
  parts: z.array(z.strictObject({ partNumber: z.number().int().positive(), etag: z.string().min(1) })).min(1),
  config: z.strictObject({
    vcpus: z.number().int().min(1),
    ramMb: z.number().int().min(1),
    diskLimitGb: z.number().int().min(1),
    imageId: z.string().min(1),
    userData: z.string().nullable().optional(),
  }),
});
export type CompleteImportRequest = z.infer<typeof CompleteImportRequest>;

export const ImportCompleted = z.object({ importId: z.string(), cubeId: z.string(), status: z.string() });
export type ImportCompleted = z.infer<typeof ImportCompleted>;

// ---------------------------------------------------------------- CLI device login (RFC 8628)

export const DeviceLoginStarted = z.object({
  deviceCode: z.string(),
  userCode: z.string(),
  verificationUri: z.string(),
  verificationUriComplete: z.string(),
  interval: z.number().int().positive(),
  expiresIn: z.number().int().positive(),
});
export type DeviceLoginStarted = z.infer<typeof DeviceLoginStarted>;

export const DevicePollRequest = z.strictObject({ deviceCode: z.string().min(1) });

export const DeviceLoginApproved = z.object({ apiKey: z.string(), spaceId: z.string() });
export type DeviceLoginApproved = z.infer<typeof DeviceLoginApproved>;

// ---------------------------------------------------------------- errors (zod/mini, their own module: the client reads them without the rest)

export { ErrorBody, ProxyProtocolMismatchBody, TerminationProtectedBody } from "./error-bodies.js";

// ---------------------------------------------------------------- envelopes

/** Accept the reference's envelope (`{cube: …}`) and the spec's bare object alike. */
export function enveloped<T extends z.core.$ZodType>(key: string, inner: T) {
  return z.union([z.object({ [key]: inner }).transform((o) => (o as Record<string, z.infer<T>>)[key] as z.infer<T>), inner]);
}

/** A list in the reference's envelope (`{cubes: […], pagination}`) or the spec's bare array. */
export function listEnveloped<T extends z.core.$ZodType>(key: string, inner: T) {
  return z.union([
    z.object({ [key]: z.array(inner), pagination: z.optional(Pagination) }).transform((o) => ({
      items: (o as Record<string, z.infer<T>[]>)[key] as z.infer<T>[],
      pagination: (o as { pagination?: Pagination }).pagination,
    })),
    z.array(inner).transform((items) => ({ items, pagination: undefined as Pagination | undefined })),
  ]);
}
