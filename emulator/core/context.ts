/** What a route handler receives. */
import type { AuthInfo } from "./auth.js";
import type { Core } from "./core.js";
import type { ApiResponse } from "./http.js";

export type { AuthInfo } from "./auth.js";

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
