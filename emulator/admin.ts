/**
 * The operator/test surface: in process (`admin` on the running emulator) and over HTTP under
 * /__emulator (no API key, never rate limited or logged; only the emulator has it).
 *
 * The routes and their bodies are ADMIN_ROUTES and Schemas below.
 *
 * A web page the developer visits must not drive it: every request needs a loopback Host header (421: DNS
 * rebinding), a POST needs Content-Type application/json (415: a cross-site form cannot set it without a CORS
 * preflight, never granted). The device page's form is the one exception (cli-auth.ts).
 */
import * as z from "zod/mini";
import { DnsRecordType } from "../schema/api.js";
import { auditRows, writeAudit } from "./core/audit.js";
import { createSpace } from "./core/auth.js";
import type { Core } from "./core/core.js";
import {
  badRequest,
  HttpError,
  json,
  mediaType,
  notFound,
  parseJsonBody,
  parseWith,
  SUCCESS,
  type ApiRequest,
  type ApiResponse,
} from "./core/http.js";
import { isoAt } from "./core/ids.js";
import { createBackup } from "./resources/backups.js";
import { answerDeviceLogin, deviceLoginForm, deviceLoginPage } from "./resources/cli-auth.js";
import { isLoopbackHostHeader } from "./core/loopback.js";
import { removeCube } from "./resources/cubes.js";
import { publishDns, removeDns, setDnsUnavailable } from "./resources/dns.js";
import type { EmulatorAdmin } from "./types.js";

export const ADMIN_PREFIX = "/__emulator";

const SystemCase = z.enum([
  "unfunded_storage_sweep",
  "snapshot_rollback_failure",
  "transfer_cancellation_cleanup",
  "orphan_directory_teardown",
]);
const Schemas = {
  space: z.strictObject({ id: z.optional(z.string().check(z.minLength(1))), name: z.optional(z.string().check(z.minLength(1))) }),
  dns: z.strictObject({ type: DnsRecordType, host: z.string().check(z.minLength(1)), value: z.string().check(z.minLength(1)) }),
  dnsRemove: z.strictObject({ type: DnsRecordType, host: z.string().check(z.minLength(1)) }),
  dnsUnavailable: z.strictObject({ host: z.string().check(z.minLength(1)), unavailable: z._default(z.boolean(), true) }),
  fault: z.strictObject({
    kind: z.enum(["latency", "status", "reset", "drop-after-commit"]),
    method: z.optional(z.string()),
    path: z.optional(z.string()),
    times: z.optional(z.number().check(z.int(), z.minimum(1))),
    status: z.optional(z.number().check(z.int(), z.minimum(100), z.maximum(599))),
    ms: z.optional(z.number().check(z.int(), z.minimum(0))),
    rate: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
    seed: z.optional(z.number().check(z.int())),
    statuses: z.optional(z.array(z.number().check(z.int(), z.minimum(100), z.maximum(599))).check(z.minLength(1))),
  }),
  clock: z.strictObject({ speed: z.optional(z.number().check(z.positive())), advanceMs: z.optional(z.number().check(z.minimum(0))) }),
  rateLimit: z.strictObject({ limit: z.number().check(z.int(), z.minimum(1)), windowMs: z.number().check(z.int(), z.minimum(1)) }),
  backup: z.strictObject({
    cubeId: z.string().check(z.minLength(1)),
    name: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
    sizeBytes: z.optional(z.number().check(z.int(), z.minimum(1))),
    status: z.optional(z.enum(["pending", "complete", "failed"])),
  }),
  device: z.strictObject({
    userCode: z.string().check(z.minLength(1)),
    spaceId: z.optional(z.string().check(z.minLength(1))),
    approve: z.optional(z.boolean()),
  }),
  storageRate: z.strictObject({ bytesPerSecond: z.nullable(z.number().check(z.int(), z.minimum(1024))) }),
  imageFault: z.strictObject({ image: z.string().check(z.minLength(1)), fault: z.nullable(z.enum(["error", "never-running"])) }),
  allowance: z.strictObject({ spaceId: z.string().check(z.minLength(1)), allowance: z.nullable(z.number().check(z.int(), z.minimum(0))) }),
  terminate: z.strictObject({
    cubeId: z.string().check(z.minLength(1)),
    actorType: z.enum(["admin", "system"]),
    reason: z.string().check(z.minLength(1)),
    systemCase: z.optional(SystemCase),
  }),
};

export function createAdmin(core: Core): EmulatorAdmin {
  return {
    createSpace: (input = {}) => core.mutate(() => createSpace(core.data, parseWith(Schemas.space, input), isoAt(core.now()))),
    publishDns: (record) => core.mutate(() => publishDns(core.data, parseWith(Schemas.dns, record))),
    removeDns: (record) => core.mutate(() => removeDns(core.data, parseWith(Schemas.dnsRemove, record))),
    setDnsUnavailable: (host, unavailable) => core.mutate(() => setDnsUnavailable(core.data, host, unavailable)),
    injectFault: (fault) => core.faults.add(parseWith(Schemas.fault, fault)),
    clearFaults: () => core.faults.clear(),
    setClockSpeed: (speed) => {
      core.scheduler.runDue();
      core.clock.setSpeed(speed);
      core.scheduler.arm();
    },
    advanceClock: (ms) =>
      core.mutate(() => {
        core.clock.advance(ms);
        core.scheduler.runDue();
      }),
    setRateLimit: (setting) => core.rateLimiter.configure(parseWith(Schemas.rateLimit, setting)),
    terminateCube: (input) => core.mutate(() => terminateCube(core, parseWith(Schemas.terminate, input))),
    requests: () => core.requests(),
    requestCounts: () => core.requestCounts(),
    clearRequests: () => core.clearRequests(),
    flushState: () => core.flush(),
    auditRows: (filter) => auditRows(core, filter),
    createBackup: (input) => core.mutate(() => createBackup(core, parseWith(Schemas.backup, input))),
    answerDeviceLogin: (input) => core.mutate(() => answerDeviceLogin(core, parseWith(Schemas.device, input))),
    setStorageRate: (bytesPerSecond) => {
      core.storageBytesPerSecond = parseWith(Schemas.storageRate, { bytesPerSecond }).bytesPerSecond;
    },
    setImageFault: (image, fault) => {
      const setting = parseWith(Schemas.imageFault, { image, fault });
      if (setting.fault === null) core.imageFaults.delete(setting.image);
      else core.imageFaults.set(setting.image, setting.fault);
    },
    setBackupAllowance: (input) =>
      core.mutate(() => {
        const { spaceId, allowance } = parseWith(Schemas.allowance, input);
        if (!Object.hasOwn(core.data.spaces, spaceId)) throw notFound("Space");
        if (allowance === null) delete core.data.backupAllowance[spaceId];
        else core.data.backupAllowance[spaceId] = allowance;
      }),
  };
}

/**
 * Operator or system-recovery termination, allowed on a protected cube, gone at once. Only an internal audit row
 * is written (the spec keeps these off the customer log), so the operator's reason cannot leak.
 */
function terminateCube(core: Core, input: z.infer<typeof Schemas.terminate>): void {
  if (input.actorType === "system" && !input.systemCase) throw badRequest("systemCase is required when actorType is system");
  if (input.actorType === "admin" && input.systemCase) throw badRequest("systemCase applies only to actorType system");
  const cube = core.index.cubes.get(input.cubeId);
  if (!cube) throw notFound("Cube");
  const now = core.now();
  writeAudit(core, {
    at: isoAt(now),
    spaceId: cube.spaceId,
    category: "cube",
    action: "cube.terminated",
    actorType: input.actorType,
    actorId: input.actorType === "admin" ? "admin:emulator-operator" : `system:${input.systemCase}`,
    targetId: cube.id,
    visibility: "internal",
    reason: input.reason,
    details: { wasProtected: cube.terminationProtection, ...(input.systemCase ? { systemCase: input.systemCase } : {}) },
  });
  removeCube(core, cube, now);
}

type AdminRoute = (admin: EmulatorAdmin, body: unknown, query: URLSearchParams) => ApiResponse;

const ADMIN_ROUTES: Record<string, AdminRoute> = {
  "POST /spaces": (admin, body) => json(201, admin.createSpace((body ?? {}) as { id?: string; name?: string })),
  "POST /dns": (admin, body) => ok(() => admin.publishDns(body as never)),
  "DELETE /dns": (admin, body, query) => ok(() => admin.removeDns((body ?? Object.fromEntries(query)) as never)),
  "POST /dns/unavailable": (admin, body) =>
    ok(() => {
      const { host, unavailable } = parseWith(Schemas.dnsUnavailable, body);
      admin.setDnsUnavailable(host, unavailable);
    }),
  "POST /faults": (admin, body) => ok(() => admin.injectFault(body as never), 201),
  "DELETE /faults": (admin) => ok(() => admin.clearFaults()),
  "POST /clock": (admin, body) =>
    ok(() => {
      const { speed, advanceMs } = parseWith(Schemas.clock, body);
      if (speed !== undefined) admin.setClockSpeed(speed);
      if (advanceMs !== undefined) admin.advanceClock(advanceMs);
    }),
  "POST /rate-limit": (admin, body) => ok(() => admin.setRateLimit(body as never)),
  "POST /terminate": (admin, body) => ok(() => admin.terminateCube(body as never)),
  "POST /backups": (admin, body) => json(201, { backup: admin.createBackup(body as never) }),
  "POST /device": (admin, body) => ok(() => admin.answerDeviceLogin(body as never)),
  "POST /storage-rate": (admin, body) => ok(() => admin.setStorageRate(parseWith(Schemas.storageRate, body).bytesPerSecond)),
  "POST /backup-allowance": (admin, body) => ok(() => admin.setBackupAllowance(body as never)),
  "POST /image-fault": (admin, body) =>
    ok(() => {
      const { image, fault } = parseWith(Schemas.imageFault, body);
      admin.setImageFault(image, fault);
    }),
  "GET /requests": (admin) => json(200, { requests: admin.requests() }),
  "DELETE /requests": (admin) => ok(() => admin.clearRequests()),
  "GET /request-counts": (admin) => json(200, { requestCounts: admin.requestCounts() }),
  "POST /flush": (admin) => ok(() => admin.flushState()),
  "GET /audit": (admin, _body, query) => {
    const visibility = query.get("visibility");
    if (visibility !== null && visibility !== "customer" && visibility !== "internal")
      throw badRequest("visibility must be customer or internal");
    return json(200, { auditRows: admin.auditRows({ visibility: visibility ?? undefined, spaceId: query.get("spaceId") ?? undefined }) });
  },
};

function ok(action: () => void, status = 200): ApiResponse {
  action();
  return json(status, SUCCESS);
}

/** The pages a browser uses (they answer HTML and check their own requests). */
const BROWSER_ROUTES: Record<string, (core: Core, req: ApiRequest) => ApiResponse> = {
  "GET /device": (core, req) => deviceLoginPage(core, req),
  "POST /device/answer": (core, req) => deviceLoginForm(core, req),
};

export function adminHandler(admin: EmulatorAdmin, core: Core): (req: ApiRequest) => Promise<ApiResponse> {
  return async (req) => {
    const name = `${req.method} ${req.path.slice(ADMIN_PREFIX.length)}`;
    if (!isLoopbackHostHeader(req.headers.host))
      return json(421, {
        error: `The emulator's admin surface answers only loopback Host headers (127.0.0.1, localhost, [::1]), not ${JSON.stringify(req.headers.host)}`,
      });
    const page = BROWSER_ROUTES[name];
    if (page) return page(core, req);
    const route = ADMIN_ROUTES[name];
    if (!route) return json(404, { error: `No admin route ${req.method} ${req.path}` });
    if (req.method === "POST" && mediaType(req) !== "application/json")
      return json(415, { error: "Admin POSTs need Content-Type: application/json" });
    try {
      return route(admin, parseJsonBody(req.body), req.query);
    } catch (thrown) {
      if (thrown instanceof HttpError) return json(thrown.status, { error: thrown.message });
      return json(400, { error: thrown instanceof Error ? thrown.message : String(thrown) });
    }
  };
}
