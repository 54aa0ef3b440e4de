/**
 * The client's response schemas, by name (client/cube-client.ts request()). This module (with
 * zod classic and every schema of the API) is loaded the first time an answer needs zod: one
 * the quick check (fast-check.ts) leaves to zod, or an operation without a quick check. A plan
 * whose answers the quick check takes never builds them (~13 ms of its start-up).
 */
import { z } from "zod";
import {
  AcceptedShare,
  AttachDomainResponse,
  Backup,
  BackupDownload,
  BackupShare,
  BackupShares,
  CreatedWebhook,
  Cube,
  CubeImport,
  CubeSshInfo,
  Domain,
  DomainRecordsView,
  Image,
  ImportCompleted,
  ImportStarted,
  Pricing,
  Region,
  Snapshot,
  Space,
  TcpMapping,
  Webhook,
  WebhookDelivery,
  enveloped,
  listEnveloped,
} from "../schema/index.js";

export { AcceptedShare, BackupDownload, BackupShares, DomainRecordsView, ImportCompleted, ImportStarted };

/** A bare Domain (spec) or {domain, records} (reference). */
export const AttachDomainResult = z.union([AttachDomainResponse, z.pipe(Domain, z.transform((domain) => ({ domain, records: [] })))]);
/** Mutations whose answer the client does not use: anything JSON (or nothing) is fine. */
export const Ignored = z.unknown();

// Built once: zod compiles a schema on its first parse, so a schema made per request costs a
// compilation per request.
export const OneCube = enveloped("cube", Cube);
export const OneDomain = enveloped("domain", Domain);
export const OnePricing = enveloped("pricing", Pricing);
export const OneSnapshot = enveloped("snapshot", Snapshot);
export const OneSpace = enveloped("space", Space);
export const OneSsh = enveloped("ssh", CubeSshInfo);
export const OneTcpMapping = enveloped("tcpMapping", TcpMapping);
export const OneCreatedWebhook = enveloped("webhook", CreatedWebhook);
export const OneWebhook = enveloped("webhook", Webhook);
export const ListCubes = listEnveloped("cubes", Cube);
export const ListDeliveries = listEnveloped("deliveries", WebhookDelivery);
export const ListDomains = listEnveloped("domains", Domain);
export const ListImages = listEnveloped("images", Image);
export const ListRegions = listEnveloped("regions", Region);
export const ListSnapshots = listEnveloped("snapshots", Snapshot);
export const ListTcpMappings = listEnveloped("tcpMappings", TcpMapping);
export const ListWebhooks = listEnveloped("webhooks", Webhook);
export const ListBackups = listEnveloped("backups", Backup);
export const OneBackup = enveloped("backup", Backup);
export const OneShare = enveloped("share", BackupShare);
export const OneImport = enveloped("import", CubeImport);
