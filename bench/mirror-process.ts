/**
 * A read-only mirror of an emulator state file, for timing cubeform itself at 10,000 cubes.
 *
 * Why: the emulator answers each read by scanning whole tables — listing a page calls
 * publicIpv4 (emulator/views.ts) per cube, over every TCP mapping; GET …/tcp-mappings calls
 * cubeMappings (emulator/tcp.ts) and GET …/domains filters every domain (emulator/domains.ts
 * listDomains). A plan reads 2 per cube, so the emulator's work grows with cubes²: minutes at
 * 10,000 cubes, which would bury cubeform's own time. This mirror answers the same three reads
 * from the same state with the emulator's own view functions (cubeView, tcpView, domainView),
 * each cube's rows indexed once at start. run.ts checks that its answers equal the emulator's.
 *
 *   node --import tsx bench/mirror-process.ts '{"statePath":"…","apiKey":"…"}'
 *
 * Same ready line and /__bench routes as emulator-process.ts. Anything else is 404; a
 * mutation is 405 (the mirror never changes).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CubeRecord, DomainRecord, StateData, TcpRecord } from "../emulator/state.js";
import { cubeView, domainView, tcpView } from "../emulator/views.js";
import { listenAndAnnounce, reply, RequestCounter } from "./emulator-process.js";

export interface MirrorOptions {
  statePath: string;
  apiKey: string;
  defaultPageSize?: number;
}

interface CubeRows {
  tcp: Record<string, TcpRecord>;
  tcpList: TcpRecord[];
  domains: DomainRecord[];
}

function main(): void {
  const options = JSON.parse(process.argv[2] ?? "{}") as MirrorOptions;
  const data = JSON.parse(readFileSync(options.statePath, "utf8")) as StateData;
  const spaceId = data.initialSpaceId;
  const cubes: CubeRecord[] = Object.values(data.cubes).filter((cube) => cube.spaceId === spaceId);
  const rows = new Map<string, CubeRows>();
  const rowsOf = (cubeId: string): CubeRows => {
    let r = rows.get(cubeId);
    if (!r) rows.set(cubeId, (r = { tcp: {}, tcpList: [], domains: [] }));
    return r;
  };
  for (const m of Object.values(data.tcpMappings)) {
    const r = rowsOf(m.cubeId);
    r.tcp[m.id] = m;
    r.tcpList.push(m);
  }
  for (const d of Object.values(data.domains)) rowsOf(d.cubeId).domains.push(d);
  const counter = new RequestCounter();
  const pageSize = options.defaultPageSize ?? 20;

  const answer = (method: string, path: string, query: URLSearchParams, key: string | undefined): { status: number; body: unknown } => {
    if (method !== "GET") return { status: 405, body: { error: "the bench mirror is read-only" } };
    if (key !== options.apiKey) return { status: 401, body: { error: "Invalid API key" } };
    const m = /^\/api\/v1\/spaces\/([^/]+)\/cubes(?:\/([^/]+)\/(domains|tcp-mappings))?$/.exec(path);
    if (!m) return { status: 404, body: { error: `No such endpoint: ${path}` } };
    if (decodeURIComponent(m[1] ?? "") !== spaceId) return { status: 403, body: { error: "This API key is not scoped to that space" } };
    if (m[2] === undefined) {
      const limit = Number(query.get("limit") ?? pageSize);
      const page = Number(query.get("page") ?? 1);
      const slice = cubes.slice((page - 1) * limit, page * limit);
      // cubeView reads data.tcpMappings only to find the cube's own mappings: give it those.
      const views = slice.map((cube) => cubeView({ ...data, tcpMappings: rows.get(cube.id)?.tcp ?? {} }, cube));
      return { status: 200, body: { cubes: views, pagination: { page, limit, total: cubes.length, totalPages: Math.ceil(cubes.length / limit) } } };
    }
    const cubeId = decodeURIComponent(m[2]);
    const cube = data.cubes[cubeId];
    if (!cube || cube.spaceId !== spaceId) return { status: 404, body: { error: "Cube not found" } };
    const r = rows.get(cubeId);
    if (m[3] === "domains") return { status: 200, body: { domains: (r?.domains ?? []).map(domainView) } };
    return { status: 200, body: { tcpMappings: (r?.tcpList ?? []).map((t) => tcpView(data, t)) } };
  };

  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const method = (req.method ?? "GET").toUpperCase();
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (counter.serveBenchRoute(url.pathname, res)) return;
    req.resume();
    req.on("end", () => {
      const started = performance.now();
      const header = req.headers["x-api-key"];
      const { status, body } = answer(method, url.pathname, url.searchParams, Array.isArray(header) ? header[0] : header);
      const text = JSON.stringify(body);
      counter.count(method, url.pathname, status, performance.now() - started);
      reply(res, status, text);
    });
  };

  void listenAndAnnounce(serve, { apiKey: options.apiKey, spaceId }, () => {});
}

if (process.argv[1]?.endsWith("mirror-process.ts")) main();
