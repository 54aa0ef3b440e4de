/** What a route handler receives. */
import type { AuthInfo } from "./auth.js";
import type { Core } from "./core.js";
import { notFound, type ApiResponse } from "./http.js";
import { rowOf } from "./indexes.js";

export interface RouteContext {
  core: Core;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the body was empty. */
  body: unknown;
  auth: AuthInfo;
  /** Emulated time of the request. */
  now: number;
  /** The origin the client reached the emulator at (for presigned URLs), e.g. http://127.0.0.1:8787 */
  origin: string;
}

export type RouteHandler = (ctx: RouteContext) => ApiResponse;

/** "user:<keyId>": who changed something, as the API reports it. */
export function actorOf(ctx: RouteContext): string {
  return `user:${ctx.auth.keyId}`;
}

/** The record of the key's space that path parameter `param` names; another space's is a 404 exactly like a missing one. */
export function pathRow<T extends { spaceId: string }>(ctx: RouteContext, table: Record<string, T>, param: string, what: string): T {
  const row = rowOf(table, ctx.params[param] ?? "");
  if (!row || row.spaceId !== ctx.auth.spaceId) throw notFound(what);
  return row;
}
