/** Custom domains: attach with proxy settings, list, patch, detach, and the records view. */
import { randomBytes, scryptSync } from "node:crypto";
import {
  AttachDomainRequest,
  DOMAIN_PROXY_SETTINGS,
  DomainRecordsView,
  PatchDomainRequest,
  type DomainSettings,
} from "../../schema/api.js";
import type { RouteContext } from "../core/context.js";
import type { Core } from "../core/core.js";
import { badRequest, conflict, HttpError, json, parseWith, SUCCESS, type ApiResponse } from "../core/http.js";
import { isoAt, newId, randomHex } from "../core/ids.js";
import { listOf, object, ref, single, SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import { taggedRoutes, type Resource } from "../core/resource.js";
import type { CubeRecord, DomainRecord } from "../core/state.js";
import { CUBE_PATH, requireCube, requireLiveCube } from "./cube-lookup.js";
import { checkRecord, requiredRecords } from "./dns.js";
import { domainView } from "./views.js";

function requireDomain(ctx: RouteContext): { cube: CubeRecord; domain: DomainRecord } {
  const cube = requireCube(ctx);
  return { cube, domain: ctx.core.index.domains.requireOf(cube.id, ctx.params.mappingId, "Domain") };
}

export function listDomains(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  return json(200, { domains: ctx.core.index.domains.ofCube(cube.id).map(domainView) });
}

export function attachDomain(ctx: RouteContext): ApiResponse {
  const body = parseWith(AttachDomainRequest, ctx.body);
  const cube = requireLiveCube(ctx);
  if (ctx.core.index.domains.byHostname(body.domain)) throw conflict(`Domain ${body.domain} is already attached to a Cube`);
  const at = isoAt(ctx.now);
  const domain: DomainRecord = {
    id: newId("dom"),
    spaceId: cube.spaceId,
    cubeId: cube.id,
    domain: body.domain,
    port: body.port,
    status: "active",
    isWildcard: body.domain.startsWith("*."),
    token: randomHex(12),
    securityHeadersMode: "enforced",
    responseHeaderTimeoutSecs: 60,
    responseHeaderOverrides: null,
    requestHeaderOverrides: null,
    maxRequestBodyMb: null,
    responseCompression: false,
    ipAllowList: null,
    ipDenyList: null,
    basicAuthUser: null,
    basicAuthPasswordHash: null,
    corsConfig: null,
    originScheme: "http",
    proxyProtocol: null,
    createdAt: at,
    updatedAt: at,
  };
  applySettings(domain, body);
  assertProxyProtocolConsistent(ctx.core, domain, body.confirmMixedProxyProtocol === true);
  ctx.core.index.domains.put(domain);
  ctx.core.events.emit(cube.spaceId, "domain.added", { domain: domainView(domain) }, ctx.now);
  return json(201, { domain: domainView(domain), records: requiredRecords(domain) });
}

/** Partial update: only the fields sent change. Validated on a copy, so a refusal changes nothing. */
export function patchDomain(ctx: RouteContext): ApiResponse {
  const body = parseWith(PatchDomainRequest, ctx.body ?? {});
  const { domain } = requireDomain(ctx);
  const next: DomainRecord = structuredClone(domain);
  applySettings(next, body);
  assertProxyProtocolConsistent(ctx.core, next, body.confirmMixedProxyProtocol === true);
  next.updatedAt = isoAt(ctx.now);
  ctx.core.index.domains.put(next);
  return json(200, { domain: domainView(next) });
}

export function detachDomain(ctx: RouteContext): ApiResponse {
  const { cube, domain } = requireDomain(ctx);
  ctx.core.index.domains.delete(domain);
  ctx.core.events.emit(cube.spaceId, "domain.removed", { domain: domainView(domain) }, ctx.now);
  return json(200, SUCCESS);
}

export function domainRecords(ctx: RouteContext): ApiResponse {
  const { domain } = requireDomain(ctx);
  const records = requiredRecords(domain).map((record) => checkRecord(ctx.core.data, record));
  const found = records.filter((r) => r.state === "found").length;
  return json(200, {
    domain: domain.domain,
    isWildcard: domain.isWildcard,
    records,
    summary: { found, total: records.length, complete: found === records.length },
    checkedAt: isoAt(ctx.now),
  });
}

const PLAIN_SETTINGS = DOMAIN_PROXY_SETTINGS satisfies readonly (keyof DomainRecord)[];

function applySettings(domain: DomainRecord, settings: DomainSettings): void {
  const target = domain as unknown as Record<string, unknown>;
  for (const key of PLAIN_SETTINGS) if (settings[key] !== undefined) target[key] = settings[key];
  applyBasicAuth(domain, settings);
}

/** Setting basicAuthUser requires basicAuthPassword; null or "" clears Basic Auth. */
function applyBasicAuth(domain: DomainRecord, settings: DomainSettings): void {
  const { basicAuthUser: user, basicAuthPassword: password } = settings;
  if (user === null || user === "") {
    domain.basicAuthUser = null;
    domain.basicAuthPasswordHash = null;
    return;
  }
  if (user !== undefined) {
    if (!password) throw badRequest("basicAuthPassword is required when setting basicAuthUser");
    domain.basicAuthUser = user;
    domain.basicAuthPasswordHash = hashPassword(password);
    return;
  }
  if (password !== undefined) {
    if (domain.basicAuthUser === null || !password) throw badRequest("basicAuthPassword needs basicAuthUser: send both");
    domain.basicAuthPasswordHash = hashPassword(password);
  }
}

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 1024 });
  return `scrypt$${salt.toString("hex")}$${hash.toString("hex")}`;
}

/** Domains of one cube port must agree on PROXY protocol unless the caller confirms (reference 409). */
function assertProxyProtocolConsistent(core: Core, domain: DomainRecord, confirmed: boolean): void {
  if (confirmed) return;
  const others = core.index.domains
    .ofCube(domain.cubeId)
    .filter((d) => d.id !== domain.id && d.port === domain.port && d.proxyProtocol !== domain.proxyProtocol);
  if (others.length === 0) return;
  const names = others.map((d) => d.domain);
  const message = `Domains ${names.join(", ")} on port ${domain.port} use a different PROXY protocol setting; send confirmMixedProxyProtocol: true to mix them`;
  throw new HttpError(409, message, {
    error: message,
    errorMeta: { code: "proxy_protocol_port_mismatch", port: domain.port, domains: names },
  });
}

const DOMAINS = `${CUBE_PATH}/domains`;
const DOMAIN = `${DOMAINS}/{mappingId}`;
const ATTACHED = object({ domain: ref("Domain"), records: { type: "array", items: ref("DnsRecord") } });

export const domainsResource: Resource = {
  routes: taggedRoutes("Domains", [
    [["GET", DOMAINS, listDomains], "List custom domains of a Cube", [200, listOf("domains", "Domain")], [404]],
    [["POST", DOMAINS, attachDomain], "Attach a custom domain", [201, ATTACHED], [400, 404, 409], { body: AttachDomainRequest }],
    [
      ["PATCH", DOMAIN, patchDomain],
      "Update a domain's proxy settings",
      [200, single("domain", "Domain")],
      [400, 404, 409],
      { body: PatchDomainRequest },
    ],
    [["DELETE", DOMAIN, detachDomain], "Detach a custom domain", [200, SUCCESS_SCHEMA], [404]],
    [
      ["GET", `${DOMAIN}/records`, domainRecords],
      "DNS records the domain needs, with their live state",
      [200, ref("DomainRecordsView")],
      [404],
    ],
  ]),
  schemas: { DomainRecordsView: DomainRecordsView },
};
