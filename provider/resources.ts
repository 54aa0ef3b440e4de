/**
 * The Pulumi dynamic resources: Cube, Domain, TcpMapping, Webhook.
 *
 * Pulumi serializes each provider object into state (`__provider`) with everything it
 * captures. So the provider methods below only forward, by package name, to
 * `cubeform/provider-runtime`: the serialized text holds no client, no path and no secret,
 * and the plugin loads the runtime from the program's own node_modules. The names they call
 * are a contract with every state file already written: never rename them.
 */
import pulumi from "@pulumi/pulumi";
import { DOMAIN_DECLARED_SETTINGS } from "../schema/api.js";
import { deprecatedNamesIn, deprecationWarning, type AliasedKind } from "./aliases.js";
import type {
  CubeGroupInputs,
  CubeGroupMemberOutput,
  CubeInputs,
  CubeOutputs,
  CubeResourcesShape,
  DomainInputs,
  DomainOutputs,
  DomainRecordOutput,
  Power,
  TcpMappingInputs,
  TcpMappingOutputs,
  WebhookInputs,
  WebhookOutputs,
} from "./types.js";

type Provider = pulumi.dynamic.ResourceProvider;

/** The kinds the runtime has functions for, each named `${kind}Check` … `${kind}Delete`. */
type RuntimeKind = "cube" | "domain" | "tcpMapping" | "webhook" | "cubeGroup";
type Forwarded = (...args: unknown[]) => Promise<never>;

/** A provider whose methods only forward, by package and by name, to the runtime's functions of `kind`. */
function forwardingProvider(kind: RuntimeKind): Provider {
  const runtime = async (name: string): Promise<Forwarded> =>
    ((await import("cubeform/provider-runtime")) as unknown as Record<string, Forwarded>)[`${kind}${name}`] as Forwarded;
  return {
    async configure(req) {
      return (await import("cubeform/provider-runtime")).configure(req);
    },
    check: async (olds, news) => (await runtime("Check"))(olds, news),
    diff: async (id, olds, news) => (await runtime("Diff"))(id, olds, news),
    create: async (inputs) => (await runtime("Create"))(inputs),
    read: async (id, props) => (await runtime("Read"))(id, props),
    update: async (id, olds, news) => (await runtime("Update"))(id, olds, news),
    delete: async (id, props) => (await runtime("Delete"))(id, props),
  };
}

export const cubeProvider = forwardingProvider("cube");
export const domainProvider = forwardingProvider("domain");
export const tcpMappingProvider = forwardingProvider("tcpMapping");
export const webhookProvider = forwardingProvider("webhook");
export const cubeGroupProvider = forwardingProvider("cubeGroup");

/** The module part of the resource types: `pulumi-nodejs:dynamic/cubeform:Cube`. */
const MODULE = "cubeform";

type Inputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** Old input names still work (check() renames them); the program's own log says to rename them. */
function warnDeprecatedNames(kind: AliasedKind, args: object, resource: pulumi.Resource): void {
  const renamed = deprecatedNamesIn(kind, args as Record<string, unknown>);
  if (renamed.length > 0) void pulumi.log.warn(deprecationWarning(kind, renamed), resource);
}

/** Every output key must be among the registered props for Pulumi to resolve it. */
function withOutputKeys<T extends object>(keys: readonly string[], args: T): Record<string, unknown> {
  const props: Record<string, unknown> = Object.fromEntries(keys.map((key) => [key, undefined]));
  return Object.assign(props, args);
}

export interface CubeArgs extends Omit<Inputs<CubeInputs>, "name" | "resources"> {
  /** The cube's name (its hostname). Default: the resource name. */
  name?: pulumi.Input<string>;
  resources: pulumi.Input<Inputs<CubeResourcesShape>>;
}

const CUBE_OUTPUTS = [
  "cubeId",
  "name",
  "state",
  "publicIpv4",
  "sshUser",
  "sshHost",
  "sshHostPort",
  "sshPort",
  "image",
  "region",
  "resources",
  "terminationProtection",
  "terminationProtectionChangedAt",
  "terminationProtectionChangedBy",
  "sshPublicKey",
  "userDataDigest",
  "power",
] as const satisfies readonly (keyof CubeOutputs)[];

export class Cube extends pulumi.dynamic.Resource {
  declare readonly cubeId: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly state: pulumi.Output<string>;
  declare readonly publicIpv4: pulumi.Output<string | null>;
  declare readonly sshUser: pulumi.Output<string>;
  /** Where to connect with SSH: sshHost:sshHostPort. */
  declare readonly sshHost: pulumi.Output<string | null>;
  declare readonly sshHostPort: pulumi.Output<number | null>;
  /** The SSH port inside the cube. */
  declare readonly sshPort: pulumi.Output<number | null>;
  declare readonly image: pulumi.Output<string>;
  declare readonly region: pulumi.Output<string | null>;
  declare readonly resources: pulumi.Output<CubeResourcesShape>;
  declare readonly terminationProtection: pulumi.Output<boolean>;
  declare readonly terminationProtectionChangedAt: pulumi.Output<string | null>;
  declare readonly terminationProtectionChangedBy: pulumi.Output<string | null>;
  declare readonly sshPublicKey: pulumi.Output<string | null>;
  declare readonly userDataDigest: pulumi.Output<string | null>;
  declare readonly power: pulumi.Output<Power | null>;

  constructor(name: string, args: CubeArgs, opts?: pulumi.CustomResourceOptions) {
    // userData may hold values resolved from ${env:…} (Fleet): kept encrypted in state, like a domain's password.
    const props: Record<string, unknown> = { ...args, name: args.name ?? name };
    if (args.userData !== undefined) props.userData = pulumi.secret(args.userData);
    super(cubeProvider, name, withOutputKeys(CUBE_OUTPUTS, props), opts, MODULE, "Cube");
  }
}

interface DomainArgsBase extends Omit<Inputs<DomainInputs>, "basicAuthPassword" | "hostname"> {
  /** Kept secret in state: outputs hold only its digest. */
  basicAuthPassword?: pulumi.Input<string>;
}

export type DomainArgs = DomainArgsBase &
  (
    | { hostname: pulumi.Input<string>; domain?: never }
    | {
        /** @deprecated Use `hostname` (the desired-state file's name); still accepted, with a warning. */
        domain: pulumi.Input<string>;
        hostname?: never;
      }
  );

const DOMAIN_OUTPUTS = [
  "domainId",
  "cubeId",
  "hostname",
  "port",
  "records",
  "isWildcard",
  "status",
  "basicAuthEnabled",
  "basicAuthPasswordDigest",
  ...DOMAIN_DECLARED_SETTINGS,
] as const satisfies readonly (keyof DomainOutputs)[];

/** Outputs that may reveal the password: the engine keeps them encrypted in state. */
const DOMAIN_SECRET_OUTPUTS = ["basicAuthPassword", "basicAuthPasswordDigest"];

export class Domain extends pulumi.dynamic.Resource {
  declare readonly domainId: pulumi.Output<string>;
  declare readonly cubeId: pulumi.Output<string>;
  declare readonly hostname: pulumi.Output<string>;
  declare readonly port: pulumi.Output<number | null>;
  /** The DNS records to publish for the domain. */
  declare readonly records: pulumi.Output<DomainRecordOutput[]>;
  declare readonly isWildcard: pulumi.Output<boolean>;
  declare readonly status: pulumi.Output<string>;
  declare readonly basicAuthEnabled: pulumi.Output<boolean>;
  declare readonly basicAuthPasswordDigest: pulumi.Output<string | null>;
  declare readonly securityHeadersMode: pulumi.Output<DomainOutputs["securityHeadersMode"]>;
  declare readonly responseHeaderTimeoutSecs: pulumi.Output<number | null>;
  declare readonly responseHeaderOverrides: pulumi.Output<DomainOutputs["responseHeaderOverrides"]>;
  declare readonly requestHeaderOverrides: pulumi.Output<DomainOutputs["requestHeaderOverrides"]>;
  declare readonly maxRequestBodyMb: pulumi.Output<number | null>;
  declare readonly corsConfig: pulumi.Output<DomainOutputs["corsConfig"]>;
  declare readonly originScheme: pulumi.Output<DomainOutputs["originScheme"]>;
  declare readonly responseCompression: pulumi.Output<boolean | null>;
  declare readonly ipAllowList: pulumi.Output<string[] | null>;
  declare readonly ipDenyList: pulumi.Output<string[] | null>;
  declare readonly basicAuthUser: pulumi.Output<string | null>;
  declare readonly proxyProtocol: pulumi.Output<DomainOutputs["proxyProtocol"]>;

  constructor(name: string, args: DomainArgs, opts?: pulumi.CustomResourceOptions) {
    const props = { ...args } as Record<string, unknown>;
    if (args.basicAuthPassword !== undefined) props.basicAuthPassword = pulumi.secret(args.basicAuthPassword);
    const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), ...DOMAIN_SECRET_OUTPUTS];
    super(domainProvider, name, withOutputKeys(DOMAIN_OUTPUTS, props), { ...opts, additionalSecretOutputs }, MODULE, "Domain");
    warnDeprecatedNames("Domain", args, this);
  }
}

export interface TcpMappingArgs extends Inputs<TcpMappingInputs> {
  /** @deprecated Use `udp` (the desired-state file's name); still accepted, with a warning. */
  udpEnabled?: pulumi.Input<boolean>;
  /** @deprecated Use `allow` (the desired-state file's name); still accepted, with a warning. */
  whitelistedIps?: pulumi.Input<string[]>;
}

const TCP_MAPPING_OUTPUTS = [
  "mappingId",
  "cubeId",
  "cubePort",
  "host",
  "hostPort",
  "label",
  "udp",
  "allow",
  "status",
] as const satisfies readonly (keyof TcpMappingOutputs)[];

export class TcpMapping extends pulumi.dynamic.Resource {
  declare readonly mappingId: pulumi.Output<string>;
  declare readonly cubeId: pulumi.Output<string>;
  declare readonly cubePort: pulumi.Output<number>;
  /** Where to connect: host:hostPort. */
  declare readonly host: pulumi.Output<string | null>;
  declare readonly hostPort: pulumi.Output<number>;
  declare readonly label: pulumi.Output<string | null>;
  declare readonly udp: pulumi.Output<boolean>;
  /** The allow-list (CIDRs); empty: open to the internet. */
  declare readonly allow: pulumi.Output<string[]>;
  declare readonly status: pulumi.Output<string>;

  constructor(name: string, args: TcpMappingArgs, opts?: pulumi.CustomResourceOptions) {
    super(tcpMappingProvider, name, withOutputKeys(TCP_MAPPING_OUTPUTS, args), opts, MODULE, "TcpMapping");
    warnDeprecatedNames("TcpMapping", args, this);
  }
}

export type WebhookArgs = Inputs<WebhookInputs>;

const WEBHOOK_OUTPUTS = [
  "webhookId",
  "url",
  "events",
  "description",
  "enabled",
  "createdAt",
  "secret",
] as const satisfies readonly (keyof WebhookOutputs)[];

/**
 * A webhook endpoint of the space. Any change replaces it (the API has no PATCH) with a new
 * signing secret; `secret` is a secret output, kept encrypted in state.
 */
export class Webhook extends pulumi.dynamic.Resource {
  declare readonly webhookId: pulumi.Output<string>;
  declare readonly url: pulumi.Output<string>;
  declare readonly events: pulumi.Output<string[]>;
  declare readonly description: pulumi.Output<string | null>;
  declare readonly enabled: pulumi.Output<boolean>;
  declare readonly createdAt: pulumi.Output<string>;
  /** The signing secret, to verify X-Krova-Signature; secret in state and in program outputs. */
  declare readonly secret: pulumi.Output<string | null>;

  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), "secret"];
    super(webhookProvider, name, withOutputKeys(WEBHOOK_OUTPUTS, args), { ...opts, additionalSecretOutputs }, MODULE, "Webhook");
  }
}

export interface CubeGroupArgs extends Omit<Inputs<CubeGroupInputs>, "name" | "resources"> {
  /** The group's name: members are NAME-1 … NAME-N. Default: the resource name. */
  name?: pulumi.Input<string>;
  resources: pulumi.Input<Inputs<CubeResourcesShape>>;
}

const CUBE_GROUP_OUTPUTS = ["name", "replicas", "members", "image", "resources", "rollout", "userDataDigest"] as const;

/**
 * A group of replicas, NAME-1 … NAME-N, as one resource: the inputs are the desired-state file's group entry (replicas, the cube's spec,
 * domains and ports with `{i}`/`{name}`, rollout). A change that replaces members runs inside this resource's update, in the rollout's batches.
 */
export class CubeGroup extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  declare readonly replicas: pulumi.Output<number>;
  declare readonly members: pulumi.Output<CubeGroupMemberOutput[]>;
  declare readonly image: pulumi.Output<string>;
  declare readonly resources: pulumi.Output<CubeResourcesShape>;
  declare readonly userDataDigest: pulumi.Output<string | null>;

  constructor(name: string, args: CubeGroupArgs, opts?: pulumi.CustomResourceOptions) {
    const props: Record<string, unknown> = { ...args, name: args.name ?? name };
    if (args.userData !== undefined) props.userData = pulumi.secret(args.userData);
    super(cubeGroupProvider, name, withOutputKeys(CUBE_GROUP_OUTPUTS, props), opts, MODULE, "CubeGroup");
  }
}
