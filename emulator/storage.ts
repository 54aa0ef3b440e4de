/** The /__storage byte streams (presigned URLs): signature and expiry checked before the resource sees the request; socket server only. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Core } from "./core/core.js";
import { STORAGE_PREFIX } from "./core/presign.js";
import { pathPattern, refuseStorage, type StorageRoute } from "./core/resource.js";
import { RESOURCES } from "./resources/all.js";

export type StorageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const ROUTES = RESOURCES.flatMap((resource) => resource.storage ?? []).map((route) => ({ route, ...pathPattern(route.path) }));

export function isStoragePath(pathname: string): boolean {
  return pathname.startsWith(`${STORAGE_PREFIX}/`);
}

export function createStorageHandler(core: Core): StorageHandler {
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.slice(STORAGE_PREFIX.length);
    const method = (req.method ?? "GET").toUpperCase();
    const found = match(method === "HEAD" ? "GET" : method, path);
    if (found === "malformed") return refuseStorage(req, res, 400, `Malformed percent-encoding in the path: ${url.pathname}`);
    if (!found) return refuseStorage(req, res, 404, `No such storage object: ${url.pathname}`);
    const check = core.presigner.check(path, url.searchParams, core.now());
    if (check === "invalid") return refuseStorage(req, res, 403, "The URL's signature is not valid");
    if (check === "expired") return refuseStorage(req, res, 403, "The presigned URL has expired: request a new one");
    core.scheduler.runDue();
    try {
      await found.route.handle(core, found.params, req, res);
    } catch (error) {
      if (!res.headersSent) return refuseStorage(req, res, 500, `Storage error: ${error instanceof Error ? error.message : String(error)}`);
      res.destroy();
    }
  };
}

function match(method: string, path: string): { route: StorageRoute; params: Record<string, string> } | "malformed" | undefined {
  for (const { route, names, regex } of ROUTES) {
    if (route.method !== method) continue;
    const m = regex.exec(path);
    if (!m) continue;
    try {
      return { route, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(m[i + 1] ?? "")])) };
    } catch {
      return "malformed";
    }
  }
  return undefined;
}
