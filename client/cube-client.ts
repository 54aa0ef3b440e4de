/**
 * The typed Cube API client (CubeApi). Every response is validated with the zod schemas (response-schemas.ts, loaded when first
 * needed) or the quick check that gives the same output; the spec's bare shapes and the reference's envelopes are both accepted.
 */
import type * as z from "zod/mini";
import type * as Api from "../schema/index.js";
import type * as ResponseSchemas from "./response-schemas.js";
import type { ClientStats, CreateOptions, CubeApi, CubePage, ImportArchiveOptions } from "./api.js";
import { uploadParts } from "./upload.js";
import { HttpClient, type HttpOptions, type CallRequest } from "./http.js";
import type { DownloadOptions, DownloadResult } from "./download.js";
import { fsPromises } from "../system/builtins.js";
import { checkIdempotencyKey, newIdempotencyKey } from "./keys.js";
import { InvalidArgumentError } from "./errors.js";
import { parseResponse } from "./validate.js";
import { cubePageOf, domainsOf, imagesOf, pricingOf, regionsOf, tcpMappingsOf } from "./fast-check.js";
import {
  attachDomainBody,
  createTcpMappingBody,
  domainOf,
  tcpMappingOf,
  type AttachDomainRequest,
  type AttachDomainResponse,
  type CreateTcpMappingRequest,
  type Domain,
  type TcpMapping,
} from "./vocabulary.js";

export interface ClientOptions extends HttpOptions {
  /** The space to work in; resolved once with GET /space when absent. */
  spaceId?: string;
}

export const DEFAULT_PAGE_SIZE = 100;
/** Pages of the cube list read at once after the first (listCubes). */
export const LIST_PAGES_IN_FLIGHT = 8;

type SchemaName = keyof typeof ResponseSchemas;
type Output<K extends SchemaName> = z.output<(typeof ResponseSchemas)[K]>;

let responseSchemas: Promise<typeof ResponseSchemas> | undefined;
const loadResponseSchemas = (): Promise<typeof ResponseSchemas> => (responseSchemas ??= import("./response-schemas.js"));

const seg = (id: string) => {
  if (typeof id !== "string" || id.length === 0) throw new InvalidArgumentError("An id must be a non-empty string");
  return encodeURIComponent(id);
};

export class CubeClient implements CubeApi {
  private readonly http: HttpClient;
  private spacePromise: Promise<string> | undefined;

  constructor(options: ClientOptions) {
    this.http = new HttpClient(options);
    if (options.spaceId !== undefined) this.spacePromise = Promise.resolve(options.spaceId);
  }

  get stats(): ClientStats {
    return this.http.stats;
  }

  /** The pacer this client's mutations go through (shared when one was passed in). */
  get pacer() {
    return this.http.pacer;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * `quick`: the schema's check for plainly valid bodies, else undefined (fast-check.ts). `translate`: the answer in cubeform's
   * names (vocabulary.ts); a watch's memo keeps the result, so an unchanged answer is handed out as the same objects.
   */
  private async request<K extends SchemaName, T = Output<K>>(
    schema: K,
    req: CallRequest,
    quick?: (body: unknown) => Output<K> | undefined,
    translate = (output: Output<K>) => output as T,
    onReplayed?: () => void,
  ): Promise<T> {
    const res = await this.http.call(req);
    if (res.replayed) onReplayed?.();
    const known = res.remembered?.validated;
    if (known !== undefined && known.schema === schema) return known.output as T;
    const quickly = quick?.(res.body);
    const output = translate(
      quickly ?? (parseResponse((await loadResponseSchemas())[schema], res.body, req.method, req.path, res.status) as Output<K>),
    );
    if (res.remembered !== undefined) res.remembered.validated = { schema, output };
    return output;
  }

  private async spacePath(suffix = ""): Promise<string> {
    return `/spaces/${seg(await this.spaceId())}${suffix}`;
  }

  private async cubePath(cubeId: string, suffix = ""): Promise<string> {
    return this.spacePath(`/cubes/${seg(cubeId)}${suffix}`);
  }

  private async create<K extends SchemaName>(schema: K, path: string, body: unknown, options: CreateOptions): Promise<Output<K>> {
    const idempotencyKey = checkIdempotencyKey(options?.idempotencyKey);
    return this.request(schema, { method: "POST", path, body, idempotencyKey }, undefined, undefined, options.onReplayed);
  }

  // ------------------------------------------------------------ space and lookups

  spaceId(): Promise<string> {
    if (!this.spacePromise) {
      const pending = this.getSpace().then((space) => space.id);
      // A failed lookup is not cached: the next call tries again.
      pending.catch(() => {
        if (this.spacePromise === pending) this.spacePromise = undefined;
      });
      this.spacePromise = pending;
    }
    return this.spacePromise;
  }

  getSpace(): Promise<Api.Space> {
    return this.request("OneSpace", { method: "GET", path: "/space" });
  }

  async listRegions(): Promise<Api.Region[]> {
    return (await this.request("ListRegions", { method: "GET", path: "/regions", auth: false }, regionsOf)).items;
  }

  async listImages(): Promise<Api.Image[]> {
    return (await this.request("ListImages", { method: "GET", path: "/images", auth: false }, imagesOf)).items;
  }

  /** `timeoutMs` bounds the whole read, resends included (a plan's cost must not hold the plan up). */
  getPricing(options: { timeoutMs?: number } = {}): Promise<Api.Pricing> {
    return this.request(
      "OnePricing",
      { method: "GET", path: "/pricing", auth: false, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) },
      pricingOf,
    );
  }

  // ------------------------------------------------------------ cubes

  /**
   * Page 1 says how many pages there are; the rest are read LIST_PAGES_IN_FLIGHT at a time (100 pages at 10,000 cubes, in a
   * fraction of the time of one after another), the next sent as soon as one is answered. Cubes are handed out in page order.
   */
  async listCubes(options: { pageSize?: number; onCubes?: (cubes: Api.Cube[]) => void } = {}): Promise<Api.Cube[]> {
    const limit = options.pageSize ?? DEFAULT_PAGE_SIZE;
    // A cube may shift between pages while we walk them: keep the first sighting.
    const ids = new Set<string>();
    const all: Api.Cube[] = [];
    const take = (cubes: Api.Cube[]): void => {
      const seen: Api.Cube[] = [];
      // Indexed, not for…of: ten thousand cubes go through here before V8 optimizes it.
      for (let i = 0; i < cubes.length; i++) {
        const cube = cubes[i] as Api.Cube;
        const known = ids.size;
        if (ids.add(cube.id).size === known) continue;
        all.push(cube);
        seen.push(cube);
      }
      if (seen.length > 0) options.onCubes?.(seen);
    };
    const first = await this.listCubesPage(1, limit);
    take(first.cubes);
    if (first.pagination && first.cubes.length > 0) await this.readLaterPages(first.pagination.totalPages, limit, take);
    return all;
  }

  /**
   * Pages 2…; the highest page answered so far says how many there are (the space may grow or shrink meanwhile), and an empty
   * page, or one without pagination, ends the walk.
   */
  private readLaterPages(totalPages: number, limit: number, take: (cubes: Api.Cube[]) => void): Promise<void> {
    let total = totalPages;
    let next = 2;
    let highest = 1;
    let taken = 1;
    let inFlight = 0;
    let ended = false;
    const answered = new Map<number, Api.Cube[]>();
    return new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: unknown): void => {
        failed = true;
        reject(error);
      };
      // A page that fails, or whose cubes' listener throws, fails the walk.
      const onPage = (page: number, result: CubePage): void => {
        inFlight--;
        if (failed) return;
        answered.set(page, result.cubes);
        if (page > highest) {
          highest = page;
          if (result.pagination) total = result.pagination.totalPages;
          else ended = true;
        }
        if (result.cubes.length === 0) ended = true;
        for (let cubes = answered.get(taken + 1); cubes !== undefined; cubes = answered.get(taken + 1)) {
          answered.delete(++taken);
          take(cubes);
        }
        send();
      };
      const send = (): void => {
        while (!ended && inFlight < LIST_PAGES_IN_FLIGHT && next <= total) {
          const page = next++;
          inFlight++;
          this.listCubesPage(page, limit)
            .then(
              (result) => onPage(page, result),
              (error: unknown) => {
                inFlight--;
                fail(error);
              },
            )
            .catch(fail);
        }
        if (inFlight === 0 && !failed) resolve();
      };
      send();
    });
  }

  async listCubesPage(page: number, limit = DEFAULT_PAGE_SIZE): Promise<CubePage> {
    if (!Number.isInteger(page) || page < 1) throw new InvalidArgumentError("page must be a positive integer");
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError("limit must be a positive integer");
    const path = await this.spacePath("/cubes");
    const result = await this.request("ListCubes", { method: "GET", path, query: { page, limit } }, cubePageOf);
    return { cubes: result.items, pagination: result.pagination };
  }

  async getCube(cubeId: string): Promise<Api.Cube> {
    return this.request("OneCube", { method: "GET", path: await this.cubePath(cubeId) });
  }

  async createCube(body: Api.CreateCubeRequest, options: CreateOptions): Promise<Api.Cube> {
    return this.create("OneCube", await this.spacePath("/cubes"), body, options);
  }

  async setTerminationProtection(cubeId: string, value: boolean): Promise<Api.Cube> {
    return this.request("OneCube", { method: "PATCH", path: await this.cubePath(cubeId), body: { terminationProtection: value } });
  }

  async deleteCube(cubeId: string): Promise<void> {
    await this.request("Ignored", { method: "DELETE", path: await this.cubePath(cubeId) });
  }

  async powerOff(cubeId: string): Promise<void> {
    await this.power(cubeId, "/power-off");
  }

  async wake(cubeId: string): Promise<void> {
    await this.power(cubeId, "/wake");
  }

  async restart(cubeId: string): Promise<void> {
    await this.power(cubeId, "/restart");
  }

  /** A power request carries a key minted for this call: a 5xx or a lost answer is resent (retry.ts), and the API performs it once. */
  private async power(cubeId: string, suffix: string): Promise<void> {
    await this.request("Ignored", { method: "POST", path: await this.cubePath(cubeId, suffix), idempotencyKey: newIdempotencyKey() });
  }

  async getSsh(cubeId: string): Promise<Api.CubeSshInfo> {
    return this.request("OneSsh", { method: "GET", path: await this.cubePath(cubeId, "/ssh") });
  }

  async setSshPort(cubeId: string, cubePort: number): Promise<void> {
    await this.request("Ignored", { method: "PUT", path: await this.cubePath(cubeId, "/ssh-port"), body: { cubePort } });
  }

  // ------------------------------------------------------------ domains

  async listDomains(cubeId: string): Promise<Domain[]> {
    return this.request("ListDomains", { method: "GET", path: await this.cubePath(cubeId, "/domains") }, domainsOf, ({ items }) =>
      items.map(domainOf),
    );
  }

  async attachDomain(cubeId: string, body: AttachDomainRequest, options: CreateOptions): Promise<AttachDomainResponse> {
    const { domain, records } = await this.create(
      "AttachDomainResult",
      await this.cubePath(cubeId, "/domains"),
      attachDomainBody(body),
      options,
    );
    return { domain: domainOf(domain), records };
  }

  async patchDomain(cubeId: string, domainId: string, body: Api.PatchDomainRequest): Promise<Domain> {
    const path = await this.cubePath(cubeId, `/domains/${seg(domainId)}`);
    return domainOf(await this.request("OneDomain", { method: "PATCH", path, body }));
  }

  async detachDomain(cubeId: string, domainId: string): Promise<void> {
    await this.request("Ignored", { method: "DELETE", path: await this.cubePath(cubeId, `/domains/${seg(domainId)}`) });
  }

  async getDomainRecords(cubeId: string, domainId: string): Promise<Api.DomainRecordsView> {
    return this.request("DomainRecordsView", { method: "GET", path: await this.cubePath(cubeId, `/domains/${seg(domainId)}/records`) });
  }

  // ------------------------------------------------------------ TCP mappings

  async listTcpMappings(cubeId: string): Promise<TcpMapping[]> {
    const path = await this.cubePath(cubeId, "/tcp-mappings");
    return this.request("ListTcpMappings", { method: "GET", path }, tcpMappingsOf, ({ items }) => items.map(tcpMappingOf));
  }

  async createTcpMapping(cubeId: string, body: CreateTcpMappingRequest, options: CreateOptions): Promise<TcpMapping> {
    return tcpMappingOf(
      await this.create("OneTcpMapping", await this.cubePath(cubeId, "/tcp-mappings"), createTcpMappingBody(body), options),
    );
  }

  async deleteTcpMapping(cubeId: string, mappingId: string): Promise<void> {
    await this.request("Ignored", { method: "DELETE", path: await this.cubePath(cubeId, `/tcp-mappings/${seg(mappingId)}`) });
  }

  // ------------------------------------------------------------ snapshots

  async listSnapshots(cubeId: string): Promise<Api.Snapshot[]> {
    return (await this.request("ListSnapshots", { method: "GET", path: await this.cubePath(cubeId, "/snapshots") })).items;
  }

  async createSnapshot(cubeId: string, body: z.infer<typeof Api.CreateSnapshotRequest>, options: CreateOptions): Promise<Api.Snapshot> {
    return this.create("OneSnapshot", await this.cubePath(cubeId, "/snapshots"), body, options);
  }

  async deleteSnapshot(cubeId: string, snapshotId: string): Promise<void> {
    await this.request("Ignored", { method: "DELETE", path: await this.cubePath(cubeId, `/snapshots/${seg(snapshotId)}`) });
  }

  async restoreSnapshot(cubeId: string, snapshotId: string, options?: { idempotencyKey?: string }): Promise<void> {
    const idempotencyKey = checkIdempotencyKey(options?.idempotencyKey ?? newIdempotencyKey());
    await this.request("Ignored", { method: "POST", path: await this.cubePath(cubeId, "/restore"), body: { snapshotId }, idempotencyKey });
  }

  // ------------------------------------------------------------ backups and sharing

  async listBackups(): Promise<Api.Backup[]> {
    return (await this.request("ListBackups", { method: "GET", path: await this.spacePath("/backups") })).items;
  }

  async getBackup(backupId: string): Promise<Api.Backup> {
    return this.request("OneBackup", { method: "GET", path: await this.spacePath(`/backups/${seg(backupId)}`) });
  }

  async getBackupDownload(backupId: string): Promise<Api.BackupDownload> {
    return this.request("BackupDownload", { method: "GET", path: await this.spacePath(`/backups/${seg(backupId)}/download`) });
  }

  async downloadBackup(backupId: string, file: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    const { downloadArchive } = await import("./download.js");
    return downloadArchive(() => this.getBackupDownload(backupId), file, { network: this.http.network, objectId: backupId, ...options });
  }

  async shareBackup(backupId: string, destinationSpaceId: string, options: CreateOptions): Promise<Api.BackupShare> {
    return this.create("OneShare", await this.spacePath(`/backups/${seg(backupId)}/shares`), { destinationSpaceId }, options);
  }

  async listBackupShares(): Promise<Api.BackupShares> {
    return this.request("BackupShares", { method: "GET", path: await this.spacePath("/backup-shares") });
  }

  async acceptBackupShare(shareId: string): Promise<Api.AcceptedShare> {
    return this.request("AcceptedShare", { method: "POST", path: await this.spacePath(`/backup-shares/${seg(shareId)}/accept`) });
  }

  async declineBackupShare(shareId: string): Promise<Api.BackupShare> {
    return this.request("OneShare", { method: "POST", path: await this.spacePath(`/backup-shares/${seg(shareId)}/decline`) });
  }

  async cancelBackupShare(shareId: string): Promise<Api.BackupShare> {
    return this.request("OneShare", { method: "POST", path: await this.spacePath(`/backup-shares/${seg(shareId)}/cancel`) });
  }

  // ------------------------------------------------------------ .cube imports

  async startImport(body: Api.CreateImportRequest, options: CreateOptions): Promise<Api.ImportStarted> {
    return this.create("ImportStarted", await this.spacePath("/cubes/imports"), body, options);
  }

  async getImport(importId: string): Promise<Api.CubeImport> {
    return this.request("OneImport", { method: "GET", path: await this.spacePath(`/cubes/imports/${seg(importId)}`) });
  }

  async cancelImport(importId: string): Promise<void> {
    await this.request("Ignored", { method: "DELETE", path: await this.spacePath(`/cubes/imports/${seg(importId)}`) });
  }

  async completeImport(importId: string, body: Api.CompleteImportRequest): Promise<Api.ImportCompleted> {
    return this.request("ImportCompleted", {
      method: "POST",
      path: await this.spacePath(`/cubes/imports/${seg(importId)}/complete`),
      body,
    });
  }

  async importArchive(
    file: string,
    body: Omit<Api.CreateImportRequest, "fileSizeBytes">,
    options: ImportArchiveOptions,
  ): Promise<Api.ImportCompleted> {
    const fileSizeBytes = (await fsPromises().stat(file)).size;
    const started = await this.startImport({ ...body, fileSizeBytes }, { idempotencyKey: options.idempotencyKey });
    options.onStarted?.(started);
    let parts;
    try {
      parts = await uploadParts(file, fileSizeBytes, started, { network: this.http.network, ...options });
    } catch (error) {
      if (!options.keep) await this.cancelImport(started.importId).catch(() => undefined);
      throw error;
    }
    return this.completeImport(started.importId, { parts, config: options.config });
  }

  // ------------------------------------------------------------ webhooks

  async listWebhooks(): Promise<Api.Webhook[]> {
    return (await this.request("ListWebhooks", { method: "GET", path: await this.spacePath("/webhooks") })).items;
  }

  async createWebhook(body: Api.CreateWebhookRequest): Promise<Api.CreatedWebhook> {
    return this.request("OneCreatedWebhook", { method: "POST", path: await this.spacePath("/webhooks"), body });
  }

  async getWebhook(webhookId: string): Promise<Api.Webhook> {
    return this.request("OneWebhook", { method: "GET", path: await this.spacePath(`/webhooks/${seg(webhookId)}`) });
  }

  async deleteWebhook(webhookId: string): Promise<void> {
    await this.request("Ignored", { method: "DELETE", path: await this.spacePath(`/webhooks/${seg(webhookId)}`) });
  }

  async listWebhookDeliveries(webhookId: string, limit?: number): Promise<Api.WebhookDelivery[]> {
    const path = await this.spacePath(`/webhooks/${seg(webhookId)}/deliveries`);
    const query: Record<string, number> = limit === undefined ? {} : { limit };
    return (await this.request("ListDeliveries", { method: "GET", path, query })).items;
  }
}

export function createClient(options: ClientOptions): CubeClient & CubeApi & { close(): Promise<void> } {
  return new CubeClient(options);
}
