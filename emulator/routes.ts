/** The route table under /api/v1: every resource's routes (resources/all.ts) and the OpenAPI document of exactly these. */
import { decodePathSegment, json } from "./core/http.js";
import { pathPattern, publicRoute, type Route } from "./core/resource.js";
import { openApiDocument } from "./openapi.js";
import { RESOURCES } from "./resources/all.js";

export type { Route } from "./core/resource.js";

let document: unknown;

const serveDocument = () => json(200, (document ??= openApiDocument(ROUTES, Object.assign({}, ...RESOURCES.map((r) => r.schemas ?? {})))));
const OPENAPI_ROUTE = publicRoute("GET", "/openapi.json", serveDocument, {
  summary: "This document",
  tag: "Public",
  ok: [200, { type: "object" }],
});

export const ROUTES: readonly Route[] = [...RESOURCES.flatMap((resource) => resource.routes), OPENAPI_ROUTE];

export type RouteMatch = { route: Route; params: Record<string, string> } | { methodNotAllowed: true } | undefined;

const literalSegments = (path: string): string[] => path.split("/").filter((part) => part !== "" && !part.startsWith("{"));
const literals = (path: string): number => literalSegments(path).length;

/** Every route, more literal segments first: `/cubes/imports` is never read as the cube id "imports". */
const bySpecificity = ROUTES.map((route) => ({ route, ...pathPattern(route.path) })).sort(
  (a, b) => literals(b.route.path) - literals(a.route.path),
);

/** The routes of each method, tried first: most requests match one of them. */
const byMethod = new Map<string, typeof bySpecificity>();
for (const entry of bySpecificity) byMethod.set(entry.route.method, [...(byMethod.get(entry.route.method) ?? []), entry]);

/** Literal segments of any route ("imports", "ssh", …): a parameter holding one may be another route's path. */
const LITERAL_WORDS = new Set(ROUTES.flatMap((route) => literalSegments(route.path)));

/** Matches a path relative to /api/v1; a parameter with malformed percent-encoding is a 400 (HttpError). */
export function matchRoute(method: string, path: string): RouteMatch {
  for (const { route, names, regex } of byMethod.get(method) ?? []) {
    const match = regex.exec(path);
    if (!match) continue;
    const values = names.map((_, i) => match[i + 1] ?? "");
    // e.g. GET /spaces/s/cubes/imports: the path of POST …/cubes/imports, not the cube "imports".
    if (values.some((value) => LITERAL_WORDS.has(value)) && shadowedBy(route, path)) return { methodNotAllowed: true };
    return { route, params: Object.fromEntries(names.map((name, i) => [name, decodePathSegment(values[i] ?? "")])) };
  }
  return bySpecificity.some(({ regex }) => regex.test(path)) ? { methodNotAllowed: true } : undefined;
}

/** A route with more literal segments (of another method) that matches the path too. */
function shadowedBy(route: Route, path: string): boolean {
  const own = literals(route.path);
  return bySpecificity.some((entry) => literals(entry.route.path) > own && entry.regex.test(path));
}
