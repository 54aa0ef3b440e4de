/** Conversions from stored records to the API objects the emulator returns. */
import type { Cube, Domain, Snapshot, TcpMapping, Webhook, WebhookDelivery } from "../../schema/api.js";
import { costPerHour } from "./catalog.js";
import type { StateIndex } from "../core/indexes.js";
import type { CubeRecord, DeliveryRecord, DomainRecord, SnapshotRecord, TcpRecord, WebhookRecord } from "../core/state.js";

/** The shared host-gateway address through which mapped ports are reached (TEST-NET-3). */
export const GATEWAY_IPV4 = "203.0.113.10";

export function cubeHostname(cube: CubeRecord): string | null {
  return cube.hasServer ? `${cube.id}.cubes.emulator.local` : null;
}

/** Spec §3 rule 4: null until a port is mapped. The SSH mapping every cube has does not count. */
export function publicIpv4(index: StateIndex, cube: CubeRecord): string | null {
  if (!cube.hasServer) return null;
  return index.tcp.hasPublicPort(cube.id) ? GATEWAY_IPV4 : null;
}

export function cubeView(index: StateIndex, cube: CubeRecord, options: { serverDomain?: boolean } = {}): Cube {
  return {
    id: cube.id,
    name: cube.name,
    state: cube.state,
    publicIpv4: publicIpv4(index, cube),
    image: cube.image,
    sshUser: cube.sshUser,
    resources: { ...cube.resources },
    costPerHour: costPerHour(cube.resources),
    region: cube.region,
    // The physical host of the cube's emulated server (core/servers.ts): node-1, node-2, …
    ...(options.serverDomain ? { serverDomain: cube.hasServer ? `node-${cube.server}.emulator.local` : null } : {}),
    terminationProtection: cube.terminationProtection,
    terminationProtectionChangedAt: cube.terminationProtectionChangedAt,
    terminationProtectionChangedBy: cube.terminationProtectionChangedBy,
    createdAt: cube.createdAt,
    updatedAt: cube.updatedAt,
  };
}

export function tcpView(index: StateIndex, mapping: TcpRecord): TcpMapping {
  const cube = index.cubes.get(mapping.cubeId);
  return {
    id: mapping.id,
    cubeId: mapping.cubeId,
    cubePort: mapping.cubePort,
    hostPort: mapping.hostPort,
    host: cube ? cubeHostname(cube) : null,
    label: mapping.label,
    status: mapping.status,
    isSsh: mapping.isSsh,
    udpEnabled: mapping.udpEnabled,
    whitelistedIps: mapping.whitelistedIps.map((entry) => ({ ...entry })),
    createdAt: mapping.createdAt,
    updatedAt: mapping.updatedAt,
  };
}

export function acmeTarget(domain: DomainRecord): string {
  return `${domain.token}.acme.krova.cloud`;
}

export function domainView(domain: DomainRecord): Domain & { ingressStatus: string | null } {
  return {
    id: domain.id,
    cubeId: domain.cubeId,
    domain: domain.domain,
    port: domain.port,
    status: domain.status,
    ingressStatus: null,
    securityHeadersMode: domain.securityHeadersMode,
    responseHeaderTimeoutSecs: domain.responseHeaderTimeoutSecs,
    responseHeaderOverrides: domain.responseHeaderOverrides,
    requestHeaderOverrides: domain.requestHeaderOverrides,
    maxRequestBodyMb: domain.maxRequestBodyMb,
    responseCompression: domain.responseCompression,
    ipAllowList: domain.ipAllowList,
    ipDenyList: domain.ipDenyList,
    basicAuthUser: domain.basicAuthUser,
    basicAuthEnabled: domain.basicAuthUser !== null && domain.basicAuthPasswordHash !== null,
    corsConfig: domain.corsConfig,
    originScheme: domain.originScheme,
    proxyProtocol: domain.proxyProtocol,
    isWildcard: domain.isWildcard,
    wildcardCertState: domain.isWildcard ? "pending_delegation" : null,
    acmeDelegationTarget: domain.isWildcard ? acmeTarget(domain) : null,
    createdAt: domain.createdAt,
    updatedAt: domain.updatedAt,
  };
}

export function snapshotView(snapshot: SnapshotRecord): Snapshot {
  const { spaceId: _spaceId, ...view } = snapshot;
  return view;
}

/** The single GET returns description; the list omits it (reference); only create adds the secret. */
export function webhookView(
  webhook: WebhookRecord,
  options: { description?: boolean; secret?: boolean } = {},
): Webhook & { secret?: string } {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    enabled: webhook.enabled,
    ...(options.description ? { description: webhook.description } : {}),
    ...(options.secret ? { secret: webhook.secret } : {}),
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

/** Newest first by createdAt; among equal times, the later-made (later in the table) first. */
export function newestFirst<T extends { createdAt: string }>(rows: T[]): T[] {
  return rows.reverse().sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

export function deliveryView(delivery: DeliveryRecord): WebhookDelivery {
  const { spaceId: _spaceId, webhookId: _webhookId, payload: _payload, ...view } = delivery;
  return view;
}
