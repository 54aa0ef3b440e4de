/** The API's route table under /api/v1. openapi.ts describes exactly these routes. */
import { customerAuditLog } from "./audit.js";
import { IMAGES, PRICING, REGIONS } from "./catalog.js";
import type { RouteContext, RouteHandler } from "./context.js";
import type { Core } from "./core.js";
import { createCube, deleteCube, getCube, listCubes, patchCube } from "./cubes.js";
import { attachDomain, detachDomain, domainRecords, listDomains, patchDomain } from "./domains.js";
import { json, notFound, type ApiResponse } from "./http.js";
import { openApiDocument } from "./openapi.js";
import { powerOff, restart, wake } from "./power.js";
import { createSnapshot, deleteSnapshot, listSnapshots, restoreSnapshot } from "./snapshots.js";
import { createTcpMapping, deleteTcpMapping, getSsh, listTcpMappings, putSshPort } from "./tcp.js";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks } from "./webhooks.js";

export type Route =
  | { method: string; path: string; public: true; handler: (core: Core) => ApiResponse }
  | { method: string; path: string; public?: false; handler: RouteHandler };

function getSpace(ctx: RouteContext): ApiResponse {
  const space = ctx.core.data.spaces[ctx.auth.spaceId];
  if (!space) throw notFound("Space");
  return json(200, { ...space });
}

function auditLog(ctx: RouteContext): ApiResponse {
  return json(200, { auditRows: customerAuditLog(ctx.core, ctx.auth.spaceId) });
}

const CUBE = "/spaces/{spaceId}/cubes/{cubeId}";

export const ROUTES: readonly Route[] = [
  { method: "GET", path: "/regions", public: true, handler: () => json(200, { regions: REGIONS }) },
  { method: "GET", path: "/images", public: true, handler: () => json(200, { images: IMAGES }) },
  { method: "GET", path: "/pricing", public: true, handler: () => json(200, PRICING) },
  { method: "GET", path: "/openapi.json", public: true, handler: () => json(200, openApiDocument()) },
  { method: "GET", path: "/space", handler: getSpace },
  { method: "GET", path: "/spaces/{spaceId}/audit-log", handler: auditLog },
  { method: "GET", path: "/spaces/{spaceId}/cubes", handler: listCubes },
  { method: "POST", path: "/spaces/{spaceId}/cubes", handler: createCube },
  { method: "GET", path: CUBE, handler: getCube },
  { method: "PATCH", path: CUBE, handler: patchCube },
  { method: "DELETE", path: CUBE, handler: deleteCube },
  { method: "POST", path: `${CUBE}/power-off`, handler: powerOff },
  { method: "POST", path: `${CUBE}/wake`, handler: wake },
  { method: "POST", path: `${CUBE}/restart`, handler: restart },
  { method: "GET", path: `${CUBE}/ssh`, handler: getSsh },
  { method: "PUT", path: `${CUBE}/ssh-port`, handler: putSshPort },
  { method: "GET", path: `${CUBE}/domains`, handler: listDomains },
  { method: "POST", path: `${CUBE}/domains`, handler: attachDomain },
  { method: "PATCH", path: `${CUBE}/domains/{mappingId}`, handler: patchDomain },
  { method: "DELETE", path: `${CUBE}/domains/{mappingId}`, handler: detachDomain },
  { method: "GET", path: `${CUBE}/domains/{mappingId}/records`, handler: domainRecords },
  { method: "GET", path: `${CUBE}/tcp-mappings`, handler: listTcpMappings },
  { method: "POST", path: `${CUBE}/tcp-mappings`, handler: createTcpMapping },
  { method: "DELETE", path: `${CUBE}/tcp-mappings/{mappingId}`, handler: deleteTcpMapping },
  { method: "GET", path: `${CUBE}/snapshots`, handler: listSnapshots },
  { method: "POST", path: `${CUBE}/snapshots`, handler: createSnapshot },
  { method: "DELETE", path: `${CUBE}/snapshots/{snapshotId}`, handler: deleteSnapshot },
  { method: "POST", path: `${CUBE}/restore`, handler: restoreSnapshot },
  { method: "GET", path: "/spaces/{spaceId}/webhooks", handler: listWebhooks },
  { method: "POST", path: "/spaces/{spaceId}/webhooks", handler: createWebhook },
  { method: "GET", path: "/spaces/{spaceId}/webhooks/{endpointId}", handler: getWebhook },
  { method: "DELETE", path: "/spaces/{spaceId}/webhooks/{endpointId}", handler: deleteWebhook },
  { method: "GET", path: "/spaces/{spaceId}/webhooks/{endpointId}/deliveries", handler: listDeliveries },
];

export type RouteMatch = { route: Route; params: Record<string, string> } | { methodNotAllowed: true } | undefined;

interface CompiledRoute {
  route: Route;
  names: string[];
  regex: RegExp;
}

const compiled: CompiledRoute[] = ROUTES.map((route) => ({
  route,
  names: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ""),
  regex: new RegExp(`^${route.path.replace(/\{\w+\}/g, "([^/]+)")}$`),
}));

/** The routes of each method, tried first: most requests match one of them. */
const byMethod = new Map<string, CompiledRoute[]>();
for (const entry of compiled) byMethod.set(entry.route.method, [...(byMethod.get(entry.route.method) ?? []), entry]);

/** Matches a path relative to /api/v1. */
export function matchRoute(method: string, path: string): RouteMatch {
  for (const { route, names, regex } of byMethod.get(method) ?? []) {
    const match = regex.exec(path);
    if (!match) continue;
    const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]));
    return { route, params };
  }
  return compiled.some(({ regex }) => regex.test(path)) ? { methodNotAllowed: true } : undefined;
}
