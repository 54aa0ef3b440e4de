/** Hand-built desired and observed states for the pure diff tests. */
import type { Domain, TcpMapping } from "../../client/api.js";
import type { Cube } from "../../schema/api.js";
import type { DesiredCubeSpec, DesiredState, ObservedCube, ObservedState } from "../../engine/index.js";

export const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test@example";

export function spec(name: string, overrides: Partial<DesiredCubeSpec> = {}): DesiredCubeSpec {
  return {
    name,
    image: "ubuntu-24.04",
    resources: { vcpu: 1, ramGb: 2, diskGb: 20 },
    sshPublicKey: KEY,
    domains: [],
    ports: [],
    lifecycle: { allowReplace: false, ignoreChanges: [] },
    ...overrides,
  };
}

export function desired(cubes: DesiredCubeSpec[], prune = false): DesiredState {
  return { prune, cubes };
}

export function cube(name: string, overrides: Partial<Cube> = {}): Cube {
  return {
    id: `cube-${name}`,
    name,
    state: "running",
    publicIpv4: null,
    image: "ubuntu-24.04",
    sshUser: "ubuntu",
    resources: { vcpu: 1, ramGb: 2, diskGb: 20 },
    terminationProtection: false,
    terminationProtectionChangedAt: null,
    terminationProtectionChangedBy: null,
    ...overrides,
  };
}

export function sshMapping(cubeId: string, cubePort = 22): TcpMapping {
  return mapping(cubeId, cubePort, { id: `ssh-${cubeId}`, hostPort: 30022, isSsh: true, udp: false });
}

export function mapping(cubeId: string, cubePort: number, overrides: Partial<TcpMapping> = {}): TcpMapping {
  return {
    id: `tcp-${cubeId}-${cubePort}`,
    cubeId,
    cubePort,
    hostPort: 30000 + cubePort,
    host: "h.example",
    label: null,
    status: "active",
    isSsh: false,
    udp: true,
    allow: [],
    ...overrides,
  };
}

export function domain(cubeId: string, hostname: string, overrides: Partial<Domain> = {}): Domain {
  return {
    id: `dom-${hostname}`,
    cubeId,
    hostname,
    port: 8080,
    status: "active",
    securityHeadersMode: "enforced",
    responseHeaderTimeoutSecs: 60,
    responseHeaderOverrides: null,
    requestHeaderOverrides: null,
    maxRequestBodyMb: null,
    responseCompression: true,
    ipAllowList: null,
    ipDenyList: null,
    basicAuthUser: null,
    corsConfig: null,
    originScheme: "http",
    proxyProtocol: null,
    isWildcard: false,
    ...overrides,
  };
}

export function live(c: Cube, parts: { domains?: Domain[]; tcpMappings?: TcpMapping[] } = {}): ObservedCube {
  return { cube: c, domains: parts.domains ?? [], tcpMappings: parts.tcpMappings ?? [sshMapping(c.id)] };
}

export function observed(cubes: ObservedCube[]): ObservedState {
  return { spaceId: "space-1", cubes, reads: 1 + 2 * cubes.length, observedAt: "2026-01-01T00:00:00.000Z" };
}
