/**
 * zod/mini schemas (see zod-english.ts) of the Cube Hosting API, the source of every API type in cubeform: the live service's OpenAPI document
 * (shared/reference/krova-openapi.json) with every rule the user's spec states. Response schemas are tolerant (fields the
 * spec does not name are optional), so both the spec's and the reference's bodies pass; request schemas are strict, because
 * the emulator validates with them and answers 400.
 */
import "./zod-english.js";
import * as z from "zod/mini";
import {
  Cidr,
  CubeName,
  domainSettingFields,
  Hostname,
  int,
  portNumber,
  SSH_KEY_PATTERN,
  Timestamp,
  USER_DATA_MAX_BYTES,
  webhookFields,
} from "./common.js";
import { Domain, Pagination } from "./listed.js";

// The schemas the desired-state file shares with the API (common.ts, so loading the file's schema builds no API schema), and
// the answers every plan reads (listed.ts, read by the client's quick check).
export {
  Cidr,
  CorsConfig,
  CubeName,
  DOMAIN_DECLARED_SETTINGS,
  DOMAIN_PROXY_SETTINGS,
  HeaderOverrides,
  Hostname,
  OriginScheme,
  ProxyProtocol,
  SecurityHeadersMode,
  SSH_KEY_PATTERN,
  Timestamp,
  USER_DATA_MAX_BYTES,
  WEBHOOK_EVENTS,
  WebhookEvent,
} from "./common.js";
export { Cube, CubeResources, CubeState, Domain, Image, Pagination, Pricing, PricingTier, Region, TcpMapping } from "./listed.js";

export const Space = z.object({ id: z.string(), name: z.string(), tier: z.string(), createdAt: Timestamp });
export type Space = z.infer<typeof Space>;

export const SshPublicKey = z
  .string()
  .check(
    z.maxLength(16384, "sshPublicKey must be at most 16384 characters"),
    z.regex(
      SSH_KEY_PATTERN,
      "sshPublicKey must start with ssh-ed25519, ssh-rsa, ecdsa-sha2-*, ssh-dss or sk-*@openssh.com followed by the key",
    ),
  );

export const UserData = z
  .string()
  .check(z.refine((s) => Buffer.byteLength(s, "utf8") <= USER_DATA_MAX_BYTES, "userData must be at most 16 KB (16384 bytes)"));

export const ResourcesRequest = z.strictObject({
  vcpu: z.number().check(z.int("vcpu must be a whole number"), z.minimum(1, "vcpu must be at least 1")),
  ramGb: z.number().check(z.int("ramGb must be a whole number"), z.minimum(1, "ramGb must be at least 1")),
  diskGb: z.number().check(
    z.int("diskGb must be a whole number"),
    z.minimum(10, "diskGb must be at least 10"),
    z.refine((n) => n % 5 === 0, "diskGb must be a multiple of 5"),
  ),
});

const nonEmpty = () => z.string().check(z.minLength(1));
const optionalNullable = <T extends z.core.$ZodType>(schema: T) => z.optional(z.nullable(schema));

export const CreateCubeRequest = z.strictObject({
  name: CubeName,
  image: nonEmpty(),
  resources: ResourcesRequest,
  sshPublicKey: SshPublicKey,
  region: z.optional(nonEmpty()),
  userData: z.optional(UserData),
  terminationProtection: z.optional(z.boolean()),
});
export type CreateCubeRequest = z.infer<typeof CreateCubeRequest>;

export const PatchCubeRequest = z.strictObject({ terminationProtection: z.optional(z.boolean()) });
export type PatchCubeRequest = z.infer<typeof PatchCubeRequest>;

export const SshPortRequest = z.strictObject({ cubePort: portNumber() });
export type SshPortRequest = z.infer<typeof SshPortRequest>;

export const SshPortResponse = z.object({ success: z.boolean(), cubePort: z.optional(int()) });

export const CubeSshInfo = z.object({
  host: z.nullable(z.string()),
  port: int(),
  user: z.string(),
  hostKeys: z.array(z.object({ type: z.string(), key: z.string() })),
});
export type CubeSshInfo = z.infer<typeof CubeSshInfo>;

export const SuccessResponse = z.object({ success: z.boolean() });

/** Every proxy setting the API can PATCH on a domain (the same set attach accepts). */
export const DomainSettings = z.strictObject({
  ...domainSettingFields,
  basicAuthUser: optionalNullable(z.string()),
  basicAuthPassword: z.optional(z.string()),
  confirmMixedProxyProtocol: z.optional(z.boolean()),
});
export type DomainSettings = z.infer<typeof DomainSettings>;

export const AttachDomainRequest = z.extend(DomainSettings, { domain: Hostname, port: portNumber() });
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
  note: optionalNullable(z.string()),
  mustBeGrey: z.boolean(),
  proxyOk: z.boolean(),
});
export type DnsRecord = z.infer<typeof DnsRecord>;

/** found is the state the spec leaves unnamed; the reference names it. */
export const DnsRecordState = z.enum(["found", "missing", "mismatch", "unknown"]);
export type DnsRecordState = z.infer<typeof DnsRecordState>;

export const DnsRecordStatus = z.extend(DnsRecord, {
  state: DnsRecordState,
  detail: z.optional(z.string()),
  observed: optionalNullable(z.array(z.string())),
});
export type DnsRecordStatus = z.infer<typeof DnsRecordStatus>;

export const DomainRecordsView = z.object({
  domain: z.optional(z.string()),
  isWildcard: z.optional(z.boolean()),
  records: z.array(DnsRecordStatus),
  summary: z.object({ found: z.optional(int()), total: z.optional(int()), complete: z.boolean() }),
  checkedAt: z.optional(Timestamp),
});
export type DomainRecordsView = z.infer<typeof DomainRecordsView>;

export const AttachDomainResponse = z.object({ domain: Domain, records: z._default(z.array(DnsRecord), []) });
export type AttachDomainResponse = z.infer<typeof AttachDomainResponse>;

export const CreateTcpMappingRequest = z.strictObject({
  cubePort: portNumber(),
  label: z.optional(z.string().check(z.maxLength(100))),
  udpEnabled: z.optional(z.boolean()),
  whitelistedIps: z.optional(z.array(Cidr).check(z.maxLength(500))),
  /** Deprecated alias; whitelistedIps wins when both are sent. */
  whitelistIps: z.optional(z.array(Cidr).check(z.maxLength(500))),
});
export type CreateTcpMappingRequest = z.infer<typeof CreateTcpMappingRequest>;

export const Snapshot = z.object({
  id: z.string(),
  cubeId: z.string(),
  name: z.string(),
  sizeBytes: z.nullable(int()),
  status: z.string(),
  kind: z.string(),
  createdAt: Timestamp,
});
export type Snapshot = z.infer<typeof Snapshot>;

export const CreateSnapshotRequest = z.strictObject({ name: z.optional(z.string().check(z.minLength(1), z.maxLength(128))) });
export const RestoreRequest = z.strictObject({ snapshotId: nonEmpty() });

export const CreateWebhookRequest = z.strictObject(webhookFields);
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  description: optionalNullable(z.string()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = z.extend(Webhook, { secret: z.string() });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

export const WebhookDelivery = z.object({
  id: z.string(),
  event: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: int(),
  lastAttemptAt: z.nullable(Timestamp),
  responseStatus: z.nullable(int()),
  createdAt: Timestamp,
  /** The emulator's: why a delivery failed without an attempt. */
  failureReason: z.optional(z.string()),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** A resource the API makes in the background (a backup, an import): its id, its name and how far it got. */
const workedOn = { id: z.string(), name: z.string(), status: z.string() };

/** What the backed-up cube was (live-api-facts.md §4); fields the reference's fixture names. */
export const BackupConfig = z.looseObject({
  vcpus: z.optional(int()),
  ramMb: z.optional(int()),
  diskLimitGb: z.optional(int()),
  imageId: z.optional(z.string()),
  regionId: optionalNullable(z.string()),
  regionName: optionalNullable(z.string()),
  domains: z.optional(z.array(z.unknown())),
  tcpPorts: z.optional(z.array(z.unknown())),
});
export type BackupConfig = z.infer<typeof BackupConfig>;

export const Backup = z.object({
  ...workedOn,
  originalCubeId: optionalNullable(z.string()),
  originalCubeName: optionalNullable(z.string()),
  sizeBytes: optionalNullable(int()),
  diskSizeGb: optionalNullable(z.number()),
  config: optionalNullable(BackupConfig),
  sharedFromBackupId: optionalNullable(z.string()),
  redeployedCubeId: optionalNullable(z.string()),
  completedAt: optionalNullable(Timestamp),
  createdAt: Timestamp,
});
export type Backup = z.infer<typeof Backup>;

/** GET …/backups/{b}/download: a presigned URL (15 minutes, no key needed). */
export const BackupDownload = z.object({ url: z.string(), filename: z.string(), sizeBytes: z.nullable(int()), expiresAt: Timestamp });
export type BackupDownload = z.infer<typeof BackupDownload>;

export const BackupShare = z.object({
  id: z.string(),
  status: z.string(),
  backupId: z.string(),
  backupName: optionalNullable(z.string()),
  sourceSpaceId: z.string(),
  destinationSpaceId: z.string(),
  counterpartySpaceName: optionalNullable(z.string()),
  copyBackupId: optionalNullable(z.string()),
  expiresAt: Timestamp,
  createdAt: Timestamp,
});
export type BackupShare = z.infer<typeof BackupShare>;

export const CreateShareRequest = z.strictObject({ destinationSpaceId: nonEmpty() });

export const BackupShares = z.object({
  incoming: z._default(z.array(BackupShare), []),
  outgoing: z._default(z.array(BackupShare), []),
});
export type BackupShares = z.infer<typeof BackupShares>;

export const AcceptedShare = z.object({ share: BackupShare, backup: Backup });
export type AcceptedShare = z.infer<typeof AcceptedShare>;

export const IMPORT_MIN_BYTES = 1024 * 1024;

const sizeOverride = () => optionalNullable(z.number().check(z.int(), z.minimum(1)));

export const CreateImportRequest = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(64)),
  fileSizeBytes: z.number().check(z.int(), z.minimum(IMPORT_MIN_BYTES)),
  sshKeyMode: z._default(z.enum(["replace", "keep"]), "replace"),
  sshPublicKey: optionalNullable(z.string()),
  region: optionalNullable(z.string()),
  vcpusOverride: sizeOverride(),
  ramMbOverride: sizeOverride(),
  diskGbOverride: sizeOverride(),
  userData: optionalNullable(z.string()),
  expectedConfig: optionalNullable(z.strictObject({ vcpus: z.optional(int()), ramMb: z.optional(int()), diskLimitGb: z.optional(int()) })),
});
export type CreateImportRequest = z.input<typeof CreateImportRequest>;

const positiveInt = () => z.number().check(z.int(), z.positive());

export const ImportStarted = z.object({
  importId: z.string(),
  uploadId: z.string(),
  key: z.string(),
  chunkSizeBytes: positiveInt(),
  parts: z.array(z.object({ partNumber: positiveInt(), url: z.string() })),
  expiresAt: Timestamp,
});
export type ImportStarted = z.infer<typeof ImportStarted>;

/** An upload of a .cube archive (POST /cubes/imports), until it became a cube or failed. */
export const CubeImport = z.object({
  ...workedOn,
  cubeId: optionalNullable(z.string()),
  error: optionalNullable(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: optionalNullable(z.string()),
});
export type CubeImport = z.infer<typeof CubeImport>;

const atLeastOne = () => z.number().check(z.int(), z.minimum(1));

export const CompleteImportRequest = z.strictObject({
  parts: z.array(z.strictObject({ partNumber: positiveInt(), etag: nonEmpty() })).check(z.minLength(1)),
  config: z.strictObject({
    vcpus: atLeastOne(),
    ramMb: atLeastOne(),
    diskLimitGb: atLeastOne(),
    imageId: nonEmpty(),
    userData: optionalNullable(z.string()),
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
  interval: positiveInt(),
  expiresIn: positiveInt(),
});
export type DeviceLoginStarted = z.infer<typeof DeviceLoginStarted>;

export const DevicePollRequest = z.strictObject({ deviceCode: nonEmpty() });

export const DeviceLoginApproved = z.object({ apiKey: z.string(), spaceId: z.string() });
export type DeviceLoginApproved = z.infer<typeof DeviceLoginApproved>;

// ---------------------------------------------------------------- errors (their own module: the client reads them without the rest)

export { ErrorBody, ProxyProtocolMismatchBody, TerminationProtectedBody } from "./error-bodies.js";

// ---------------------------------------------------------------- envelopes

/** Accept the reference's envelope (`{cube: …}`) and the spec's bare object alike. */
export function enveloped<T extends z.core.$ZodType>(key: string, inner: T) {
  return z.union([
    z.pipe(
      z.object({ [key]: inner }),
      z.transform((o) => (o as Record<string, z.infer<T>>)[key] as z.infer<T>),
    ),
    inner,
  ]);
}

/** A list in the reference's envelope (`{cubes: […], pagination}`) or the spec's bare array. */
export function listEnveloped<T extends z.core.$ZodType>(key: string, inner: T) {
  return z.union([
    z.pipe(
      z.object({ [key]: z.array(inner), pagination: z.optional(Pagination) }),
      z.transform((o) => ({
        items: (o as Record<string, z.infer<T>[]>)[key] as z.infer<T>[],
        pagination: (o as { pagination?: Pagination }).pagination,
      })),
    ),
    z.pipe(
      z.array(inner),
      z.transform((items) => ({ items, pagination: undefined as Pagination | undefined })),
    ),
  ]);
}
