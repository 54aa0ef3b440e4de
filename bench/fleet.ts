/**
 * The benchmark fleet: N cubes with two domains and two published ports each, the requests
 * that seed it into an emulator through the public API, the desired-state YAML that matches
 * it exactly (a plan of "no changes"), and a variant with K known changes.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createEmulatorApp } from "../emulator/index.js";
import type { CubeRecord, DomainRecord, StateData, TcpRecord } from "../emulator/state.js";
import type { AttachDomainRequest, CreateCubeRequest, CreateTcpMappingRequest } from "../schema/api.js";

export const IMAGE = "ubuntu-24.04";
export const REGION = "eu-nuremberg";
export const RESOURCES = { vcpu: 1, ramGb: 2, diskGb: 10 } as const;
export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMpCyp4nE5zvDqG7tY7k3bq3Vg4m6i1QvXb9cT0w2XhN bench@cubeform";

export interface FleetCube {
  name: string;
  domains: { hostname: string; port: number }[];
  ports: { cubePort: number; label: string; udp: boolean; allow: string[] }[];
}

export function cubeName(i: number): string {
  return `c${String(i).padStart(5, "0")}`;
}

export function fleet(size: number): FleetCube[] {
  return Array.from({ length: size }, (_, i) => {
    const name = cubeName(i);
    return {
      name,
      domains: [
        { hostname: `www.${name}.bench.example.com`, port: 8080 },
        { hostname: `api.${name}.bench.example.com`, port: 8081 },
      ],
      ports: [
        { cubePort: 5432, label: "postgres", udp: false, allow: ["10.0.0.0/8"] },
        { cubePort: 6379, label: "redis", udp: false, allow: [] },
      ],
    };
  });
}

// ------------------------------------------------------------------ seeding (public API)

export interface SeedTarget {
  url: string;
  apiKey: string;
  spaceId: string;
}

async function send(target: SeedTarget, method: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${target.url}${path}`, {
    method,
    headers: { "x-api-key": target.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`seed: ${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

async function seedCube(target: SeedTarget, cube: FleetCube): Promise<void> {
  const space = `/spaces/${encodeURIComponent(target.spaceId)}`;
  const create: CreateCubeRequest = { name: cube.name, image: IMAGE, region: REGION, resources: { ...RESOURCES }, sshPublicKey: SSH_KEY };
  const created = (await send(target, "POST", `${space}/cubes`, create)) as { cube?: { id: string }; id?: string };
  const id = created.cube?.id ?? created.id;
  if (!id) throw new Error(`seed: no cube id in ${JSON.stringify(created).slice(0, 200)}`);
  const base = `${space}/cubes/${encodeURIComponent(id)}`;
  await Promise.all([
    ...cube.domains.map((d) => send(target, "POST", `${base}/domains`, { domain: d.hostname, port: d.port } satisfies AttachDomainRequest)),
    ...cube.ports.map((p) =>
      send(target, "POST", `${base}/tcp-mappings`, { cubePort: p.cubePort, label: p.label, udpEnabled: p.udp, whitelistedIps: p.allow } satisfies CreateTcpMappingRequest),
    ),
  ]);
}

/** Seeds the fleet with `concurrency` cubes in flight; returns the cube count. */
export async function seed(target: SeedTarget, cubes: FleetCube[], concurrency = 16): Promise<number> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cubes.length) {
      const cube = cubes[next++] as FleetCube;
      await seedCube(target, cube);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, cubes.length) }, worker));
  return cubes.length;
}

// ------------------------------------------------------------------ desired state

/** What the K-changes variant changes, per cube index. */
export type ChangeKind = "protect" | "add-port" | "patch-domain" | "power-off";

export interface ChangeSet {
  byCube: Map<number, ChangeKind>;
  /** Mutations the API must receive to carry the changes out: one per change here. */
  minimalMutations: number;
  counts: Record<ChangeKind, number>;
}

/**
 * K changes spread over K distinct cubes, in the proportions of a real edit: protection flips,
 * a new port, a domain setting, a power change. Each costs exactly one mutation (PATCH cube,
 * POST tcp-mappings, PATCH domain, POST power-off).
 */
export function changeSet(size: number, k: number): ChangeSet {
  const kinds: ChangeKind[] = ["protect", "add-port", "patch-domain", "power-off"];
  const byCube = new Map<number, ChangeKind>();
  const counts: Record<ChangeKind, number> = { protect: 0, "add-port": 0, "patch-domain": 0, "power-off": 0 };
  const stride = Math.max(1, Math.floor(size / k));
  for (let j = 0; j < k; j++) {
    const kind = kinds[j % kinds.length] as ChangeKind;
    byCube.set((j * stride + 7) % size, kind);
    counts[kind]++;
  }
  return { byCube, minimalMutations: byCube.size, counts };
}

const yamlList = (items: string[]) => `[${items.join(", ")}]`;

/** The desired-state file; with `changes`, those cubes differ from what was seeded. */
export function desiredYaml(cubes: FleetCube[], changes?: ChangeSet): string {
  const lines: string[] = [
    "apiVersion: cubeform/v1",
    "defaults:",
    `  image: ${IMAGE}`,
    `  region: ${REGION}`,
    `  resources: { vcpu: ${RESOURCES.vcpu}, ramGb: ${RESOURCES.ramGb}, diskGb: ${RESOURCES.diskGb} }`,
    `  sshPublicKey: ${SSH_KEY}`,
    "cubes:",
  ];
  cubes.forEach((cube, i) => {
    const change = changes?.byCube.get(i);
    lines.push(`  - name: ${cube.name}`);
    if (change === "protect") lines.push("    terminationProtection: true");
    if (change === "power-off") lines.push("    power: stopped");
    lines.push("    domains:");
    cube.domains.forEach((d, n) => {
      lines.push(`      - hostname: ${d.hostname}`, `        port: ${d.port}`);
      if (change === "patch-domain" && n === 0) lines.push("        responseCompression: true");
    });
    lines.push("    ports:");
    const ports = change === "add-port" ? [...cube.ports, { cubePort: 9000, label: "metrics", udp: false, allow: [] }] : cube.ports;
    for (const p of ports) {
      lines.push(`      - cubePort: ${p.cubePort}`, `        label: ${p.label}`, `        udp: ${p.udp}`, `        allow: ${yamlList(p.allow)}`);
    }
  });
  return `${lines.join("\n")}\n`;
}

// ------------------------------------------------------------------ seeding (state file)

/**
 * Bulk seeding for large fleets: the emulator's public API makes seeding quadratic (every
 * TCP create collects all host ports, every attach scans all domains), so 10,000 cubes take
 * minutes. Instead the emulator itself writes its state file (space and hashed key), and the
 * fleet's records are added to it in the emulator's own record shapes — cubes running, as
 * after boot. The emulator then loads that file (statePath) like any restart.
 */
export function seedStateFile(statePath: string, cubes: FleetCube[], options: { apiKey: string; spaceId: string }): void {
  rmSync(statePath, { force: true });
  const app = createEmulatorApp({ statePath, apiKey: options.apiKey, spaceId: options.spaceId });
  app.close();
  const data = JSON.parse(readFileSync(statePath, "utf8")) as StateData;
  const now = Date.now();
  const at = new Date(now - 60_000).toISOString();
  let hostPort = data.nextHostPort;
  let serial = 0;
  const id = (prefix: string) => `${prefix}_b${(serial++).toString(16).padStart(11, "0")}`;
  const mapping = (cube: CubeRecord, fields: Pick<TcpRecord, "cubePort" | "label" | "isSsh" | "udpEnabled" | "whitelistedIps">): TcpRecord => {
    const record: TcpRecord = { id: id("tcp"), spaceId: cube.spaceId, cubeId: cube.id, hostPort: hostPort++, status: "active", createdAt: at, updatedAt: at, ...fields };
    data.tcpMappings[record.id] = record;
    return record;
  };
  for (const spec of cubes) {
    const cube: CubeRecord = {
      id: id("cube"),
      spaceId: options.spaceId,
      name: spec.name,
      state: "running",
      image: IMAGE,
      sshUser: "ubuntu",
      region: REGION,
      resources: { ...RESOURCES },
      sshPublicKey: SSH_KEY,
      userData: null,
      terminationProtection: false,
      terminationProtectionChangedAt: null,
      terminationProtectionChangedBy: null,
      hasServer: true,
      hostKeyCaptured: true,
      deleting: false,
      restarting: false,
      epoch: 0,
      createdAt: at,
      updatedAt: at,
    };
    data.cubes[cube.id] = cube;
    mapping(cube, { cubePort: 22, label: "SSH", isSsh: true, udpEnabled: false, whitelistedIps: [] });
    for (const p of spec.ports) {
      mapping(cube, { cubePort: p.cubePort, label: p.label, isSsh: false, udpEnabled: p.udp, whitelistedIps: p.allow.map((cidr) => ({ id: id("wl"), cidr })) });
    }
    for (const d of spec.domains) {
      const domain: DomainRecord = {
        id: id("dom"),
        spaceId: cube.spaceId,
        cubeId: cube.id,
        domain: d.hostname,
        port: d.port,
        status: "active",
        isWildcard: d.hostname.startsWith("*."),
        token: randomBytes(12).toString("hex"),
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
      data.domains[domain.id] = domain;
    }
  }
  data.nextHostPort = hostPort;
  // The emulator hands out host ports 30000-50000 (emulator/tcp.ts): 20,001 for the whole
  // server, fewer than 10,000 cubes with SSH and two ports need. The file may hold more.
  if (hostPort > 65_536) throw new Error(`fleet too large: host port ${hostPort - 1} > 65535`);
  data.clockNow = Math.max(data.clockNow, now);
  writeFileSync(statePath, JSON.stringify(data));
}
