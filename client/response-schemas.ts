/**
 * The client's response schemas, by name (cube-client.ts request()), loaded (with every API schema) when an answer first needs zod:
 * a plan whose answers the quick check (fast-check.ts) takes never builds them (~13 ms of its start-up).
 */
import * as z from "zod/mini";
import * as Api from "../schema/index.js";
import { enveloped, listEnveloped } from "../schema/index.js";

export { AcceptedShare, BackupDownload, BackupShares, DomainRecordsView, ImportCompleted, ImportStarted } from "../schema/index.js";

/** A bare Domain (spec) or {domain, records} (reference). */
export const AttachDomainResult = z.union([
  Api.AttachDomainResponse,
  z.pipe(
    Api.Domain,
    z.transform((domain) => ({ domain, records: [] })),
  ),
]);
/** Mutations whose answer the client does not use: anything JSON (or nothing) is fine. */
export const Ignored = z.unknown();

// Built once: zod compiles a schema on its first parse, so one made per request costs a compilation per request.
export const OneCube = enveloped("cube", Api.Cube);
export const OneDomain = enveloped("domain", Api.Domain);
export const OnePricing = enveloped("pricing", Api.Pricing);
export const OneSnapshot = enveloped("snapshot", Api.Snapshot);
export const OneSpace = enveloped("space", Api.Space);
export const OneSsh = enveloped("ssh", Api.CubeSshInfo);
export const OneTcpMapping = enveloped("tcpMapping", Api.TcpMapping);
export const OneCreatedWebhook = enveloped("webhook", Api.CreatedWebhook);
export const OneWebhook = enveloped("webhook", Api.Webhook);
export const ListCubes = listEnveloped("cubes", Api.Cube);
export const ListDeliveries = listEnveloped("deliveries", Api.WebhookDelivery);
export const ListDomains = listEnveloped("domains", Api.Domain);
export const ListImages = listEnveloped("images", Api.Image);
export const ListRegions = listEnveloped("regions", Api.Region);
export const ListSnapshots = listEnveloped("snapshots", Api.Snapshot);
export const ListTcpMappings = listEnveloped("tcpMappings", Api.TcpMapping);
export const ListWebhooks = listEnveloped("webhooks", Api.Webhook);
export const ListBackups = listEnveloped("backups", Api.Backup);
export const OneBackup = enveloped("backup", Api.Backup);
export const OneShare = enveloped("share", Api.BackupShare);
export const OneImport = enveloped("import", Api.CubeImport);
