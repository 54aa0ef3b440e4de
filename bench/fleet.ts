/**
 * The benchmark fleet: N cubes with two domains and two published ports each, the requests
 * that seed it into an emulator through the public API, the desired-state YAML that matches
 * it exactly (a plan of "no changes"), and a variant with K known changes.
 */
import { rmSync } from "node:fs";
import { createEmulatorApp, type EmulatorApp } from "../emulator/index.js";
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

/** Sends one API request (path under /api/v1) and answers its status and JSON body. */
export type Send = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** Over HTTP, to a running emulator. */
export function httpSender(target: { url: string; apiKey: string }): Send {
  return async (method, path, body) => {
    const res = await fetch(`${target.url}${path}`, {
      method,
      headers: { "x-api-key": target.apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
}

/** In process, to an emulator app (no sockets). */
export function appSender(app: EmulatorApp, apiKey: string): Send {
  return async (method, path, body) => {
    const res = await app.request(`/api/v1${path}`, {
      method,
      headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
}

async function expectOk(send: Send, method: string, path: string, body: unknown): Promise<unknown> {
  const { status, body: answer } = await send(method, path, body);
  if (status < 200 || status >= 300) throw new Error(`seed: ${method} ${path} → ${status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** Creates the cube, then attaches its domains and maps its ports: 5 POSTs for a fleet cube. */
export async function seedCube(send: Send, spaceId: string, cube: FleetCube): Promise<void> {
  const space = `/spaces/${encodeURIComponent(spaceId)}`;
  const create: CreateCubeRequest = { name: cube.name, image: IMAGE, region: REGION, resources: { ...RESOURCES }, sshPublicKey: SSH_KEY };
  const created = (await expectOk(send, "POST", `${space}/cubes`, create)) as { cube: { id: string } };
  const base = `${space}/cubes/${encodeURIComponent(created.cube.id)}`;
  for (const d of cube.domains)
    await expectOk(send, "POST", `${base}/domains`, { domain: d.hostname, port: d.port } satisfies AttachDomainRequest);
  for (const p of cube.ports) {
    await expectOk(send, "POST", `${base}/tcp-mappings`, {
      cubePort: p.cubePort,
      label: p.label,
      udpEnabled: p.udp,
      whitelistedIps: p.allow,
    } satisfies CreateTcpMappingRequest);
  }
}

/** Seeds the fleet over HTTP with `concurrency` cubes in flight; returns the cube count. */
export async function seed(target: SeedTarget, cubes: FleetCube[], concurrency = 16): Promise<number> {
  const send = httpSender(target);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cubes.length) await seedCube(send, target.spaceId, cubes[next++] as FleetCube);
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
    lines.push(...ports.flatMap(portYaml));
  });
  return `${lines.join("\n")}\n`;
}

/** A port of a cube's `ports:` list, as the desired-state file writes it. */
function portYaml(p: FleetCube["ports"][number]): string[] {
  return [`      - cubePort: ${p.cubePort}`, `        label: ${p.label}`, `        udp: ${p.udp}`, `        allow: ${yamlList(p.allow)}`];
}

/** The same fleet as groups of replicas: cubes gNNN-1 … gNNN-perGroup, the same two domains ({name} in them) and two ports each. */
export function groupedFleet(size: number, perGroup = 100): FleetCube[] {
  const template = fleet(1)[0] as FleetCube;
  return Array.from({ length: size }, (_, i) => {
    const name = `${groupName(Math.floor(i / perGroup))}-${(i % perGroup) + 1}`;
    return {
      name,
      domains: template.domains.map((d) => ({ ...d, hostname: d.hostname.replace(template.name, name) })),
      ports: template.ports,
    };
  });
}

const groupName = (k: number): string => `g${String(k).padStart(3, "0")}`;

/** The desired-state file of groupedFleet: one entry per group, `replicas: perGroup`, hostnames with {name}. */
export function groupedYaml(size: number, perGroup = 100): string {
  const template = fleet(1)[0] as FleetCube;
  const lines = desiredYaml([]).trimEnd().split("\n");
  for (let k = 0; k < Math.ceil(size / perGroup); k++) {
    lines.push(`  - name: ${groupName(k)}`, `    replicas: ${Math.min(perGroup, size - k * perGroup)}`, "    domains:");
    for (const d of template.domains)
      lines.push(`      - hostname: "${d.hostname.replace(template.name, "{name}")}"`, `        port: ${d.port}`);
    lines.push("    ports:");
    lines.push(...template.ports.flatMap(portYaml));
  }
  return `${lines.join("\n")}\n`;
}

// ------------------------------------------------------------------ seeding (state file)

/** Mutating requests per window that seeding never reaches. */
const UNLIMITED = { limit: 1_000_000_000, windowMs: 1_000 };

/**
 * Writes an emulator state file holding the fleet, seeded through the emulator's public API
 * in process (no sockets; 10,000 cubes = 50,000 POSTs in a few seconds), every cube then
 * booted to running by advancing the emulated clock. The emulator process then loads the file
 * (statePath) like any restart. Returns the seeding time.
 */
export async function seedStateFile(
  statePath: string,
  cubes: FleetCube[],
  options: { apiKey: string; spaceId: string },
): Promise<{ wallMs: number }> {
  rmSync(statePath, { force: true });
  const started = performance.now();
  const app = createEmulatorApp({ statePath, apiKey: options.apiKey, spaceId: options.spaceId, rateLimit: UNLIMITED, clockSpeed: 1 });
  try {
    const send = appSender(app, options.apiKey);
    for (const cube of cubes) await seedCube(send, options.spaceId, cube);
    app.admin.advanceClock(60_000);
  } finally {
    app.close();
  }
  return { wallMs: performance.now() - started };
}
