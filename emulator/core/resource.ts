/**
 * A resource: its routes (with their OpenAPI description), jobs, added component schemas and start hook. A new
 * one is a file under resources/ listed in resources/all.ts; the core and the request pipeline need no change.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Core } from "./core.js";
import type { RouteContext, RouteHandler } from "./context.js";
import type { ApiResponse } from "./http.js";
import type { Operation, Shape } from "./openapi-doc.js";
import type { Job } from "./state.js";

/** What a public route (no API key) receives. */
export type PublicContext = Pick<RouteContext, "core" | "body" | "origin" | "now">;

export type Route = {
  method: string;
  path: string;
  doc: Operation;
  /** The 403 a read-only key gets on this (mutating) route, when the reference words it. */
  readOnlyMessage?: string;
} & ({ public: true; handler: (ctx: PublicContext) => ApiResponse } | { public?: false; handler: RouteHandler });

/** Besides a route's summary, success response and error statuses: the rest of its doc, and its read-only 403's wording. */
export type RouteExtras = Pick<Operation, "body" | "bodyOptional" | "query"> & { readOnlyMessage?: string };

/** A line of a resource's route table (a route that needs an API key). */
export type RouteRow = [
  route: [method: string, path: string, handler: RouteHandler],
  summary: string,
  ok: Operation["ok"],
  errors?: number[],
  extras?: RouteExtras,
];

/** A resource's routes that need an API key, all under one OpenAPI tag (`doc` describes each in the OpenAPI document). */
export function taggedRoutes(tag: string, rows: readonly RouteRow[]): Route[] {
  return rows.map(([[method, path, handler], summary, ok, errors, { readOnlyMessage, ...more } = {}]) => {
    const doc: Operation = { summary, tag, ok, ...(errors && { errors }), ...more };
    return { method, path, handler, doc, readOnlyMessage };
  });
}

/** A route that needs no API key. */
export function publicRoute(method: string, path: string, handler: (ctx: PublicContext) => ApiResponse, doc: Operation): Route {
  return { method, path, public: true, handler, doc };
}

export interface JobType<P extends object = object> {
  kind: string;
  run(core: Core, job: P & Job): void;
  schedule(core: Core, payload: P, at: number): void;
}

/** A kind of scheduled job: its payload is kept in the state, so it survives restarts. */
export function defineJob<P extends Record<string, unknown>>(kind: string, run: (core: Core, job: P & Job) => void): JobType<P> {
  return {
    kind,
    run,
    schedule: (core, payload, at) => core.scheduler.schedule({ kind, ...payload }, at),
  };
}

/** A byte-stream endpoint under /__storage (presigned URLs); emulator/storage.ts checks signature and expiry first. */
export interface StorageRoute {
  method: string;
  /** Relative to /__storage, e.g. "/backups/{backupId}". */
  path: string;
  handle(core: Core, params: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** A storage request refused with a JSON error; a body it was sending (an upload) is not read, and goes with the connection. */
export function refuseStorage(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  res.end(body);
  req.resume();
}

/** A route path's parameter names, and the expression that matches the path (a `{name}` is one segment). */
export function pathPattern(path: string): { names: string[]; regex: RegExp } {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
  return { names, regex: new RegExp(`^${path.replace(/\{\w+\}/g, "([^/]+)")}$`) };
}

export interface Resource {
  routes: readonly Route[];
  jobs?: readonly JobType[];
  storage?: readonly StorageRoute[];
  /** Component schemas (by name) that this resource's route docs refer to. */
  schemas?: Record<string, Shape>;
  /** Runs once when the emulator starts, after the state is loaded, before due jobs run. */
  start?(core: Core): void;
}
