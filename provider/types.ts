/**
 * The provider's inputs and outputs, shared by the resource classes and the runtime. Outputs are what Pulumi keeps in state:
 * JSON-like values only (null, never undefined). Names are the desired-state file's (`hostname`, `udp`, `allow`).
 */
import { DOMAIN_DECLARED_SETTINGS, type DnsRecord, type DomainSettings } from "../schema/api.js";
import type * as z from "zod/mini";
import type { DesiredDomain, DesiredPort, Rollout } from "../schema/desired.js";

export type Power = "running" | "stopped";

export interface CubeResourcesShape {
  vcpu: number;
  ramGb: number;
  diskGb: number;
}

export interface CubeInputs {
  name: string;
  image: string;
  region?: string;
  resources: CubeResourcesShape;
  sshPublicKey: string;
  userData?: string;
  terminationProtection?: boolean;
  power?: Power;
  /** The SSH port inside the cube. */
  sshPort?: number;
  /** The id of a live cube to take over instead of creating one (checked against these inputs). */
  adoptId?: string;
}

export interface CubeOutputs {
  cubeId: string;
  name: string;
  state: string;
  publicIpv4: string | null;
  sshUser: string;
  /** Where to connect with SSH. */
  sshHost: string | null;
  sshHostPort: number | null;
  /** The SSH port inside the cube. */
  sshPort: number | null;
  image: string;
  region: string | null;
  resources: CubeResourcesShape;
  terminationProtection: boolean;
  terminationProtectionChangedAt: string | null;
  terminationProtectionChangedBy: string | null;
  /** Echo of the input the API never returns (diff needs it); null after an import. */
  sshPublicKey: string | null;
  /** Salted digest (`salt:hmac-sha256`, hex) of the declared userData, to see a change without keeping the script; null when none or unknown (import). */
  userDataDigest: string | null;
  /** The declared power state (null: not managed). The live one is `state`. */
  power: Power | null;
}

/** Every setting a Pulumi Domain declares (the password aside), as the API takes it. */
export type DomainSettingsShape = Pick<DomainSettings, (typeof DOMAIN_DECLARED_SETTINGS)[number]>;

export const DOMAIN_SETTING_NAMES = DOMAIN_DECLARED_SETTINGS satisfies readonly (keyof DomainSettingsShape)[];

export interface DomainInputs extends DomainSettingsShape {
  cubeId: string;
  hostname: string;
  port: number;
  /** Secret: only its salted digest is kept in outputs. */
  basicAuthPassword?: string;
  /** The id of a live domain to take over instead of attaching it ("<cubeId>/<domainId>" or the domain id). */
  adoptId?: string;
}

export type DomainRecordOutput = Pick<DnsRecord, "type" | "host" | "value" | "mustBeGrey" | "proxyOk" | "purpose">;

export type DomainSettingsOutputs = { [K in (typeof DOMAIN_SETTING_NAMES)[number]]: Exclude<DomainSettingsShape[K], undefined> | null };

export interface DomainOutputs extends DomainSettingsOutputs {
  domainId: string;
  cubeId: string;
  hostname: string;
  port: number | null;
  records: DomainRecordOutput[];
  isWildcard: boolean;
  status: string;
  basicAuthEnabled: boolean;
  /** Salted digest (`salt:hmac-sha256`, hex) of the declared basicAuthPassword, as userDataDigest; null when none is declared. */
  basicAuthPasswordDigest: string | null;
}

export interface TcpMappingInputs {
  cubeId: string;
  cubePort: number;
  label?: string;
  /** Also forward UDP on the port (default true). */
  udp?: boolean;
  /** The allow-list (CIDRs). Empty or absent leaves the port open to the internet. */
  allow?: string[];
  /** The id of a live mapping to take over instead of creating one ("<cubeId>/<mappingId>" or the mapping id). */
  adoptId?: string;
}

export interface TcpMappingOutputs {
  mappingId: string;
  cubeId: string;
  cubePort: number;
  /** Where to connect: host:hostPort. */
  host: string | null;
  hostPort: number;
  label: string | null;
  udp: boolean;
  allow: string[];
  status: string;
}

export interface WebhookInputs {
  url: string;
  /** Event names of the API's list. */
  events: string[];
  description?: string;
}

export interface WebhookOutputs {
  webhookId: string;
  url: string;
  events: string[];
  description: string | null;
  /** false: the endpoint disabled itself or was disabled in the dashboard (the next up replaces it). */
  enabled: boolean;
  createdAt: string;
  /** The signing secret (returned by the API once, at create); kept encrypted in state. */
  secret: string | null;
}

/** A CubeGroup's inputs: the desired-state file's group entry, as written there (durations "30s", `{i}` in hostnames). */
export interface CubeGroupInputs extends Omit<CubeInputs, "adoptId"> {
  /** Members NAME-1 … NAME-N; a smaller count removes the highest indexes (never a protected one). */
  replicas: number;
  /** Each member's domains: `{i}` and `{name}` in a hostname are the member's. */
  domains?: z.input<typeof DesiredDomain>[];
  ports?: z.input<typeof DesiredPort>[];
  /** How a change that replaces members is rolled out: batches of maxUnavailable, canaries, health checks, autoRevert. */
  rollout?: z.input<typeof Rollout>;
}

export interface CubeGroupMemberOutput {
  name: string;
  index: number;
  cubeId: string;
  state: string;
  image: string;
  publicIpv4: string | null;
}
