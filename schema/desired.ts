/**
 * The desired-state document (cubeform.yaml). The JSON Schema for editors is generated from
 * this file into schema/cubeform.schema.json (see schema/generate.ts).
 */
import { z } from "zod";
import { Cidr, CorsConfig, CreateWebhookRequest, CubeName, HeaderOverrides, Hostname, OriginScheme, ProxyProtocol, SecurityHeadersMode } from "./common.js";

export const API_VERSION = "cubeform/v1";

export const Power = z.enum(["running", "stopped"]);
export type Power = z.infer<typeof Power>;

export const DesiredResources = z.strictObject({
  vcpu: z.number().int().min(1),
  ramGb: z.number().int().min(1),
  diskGb: z.number().int().min(10).refine((n) => n % 5 === 0, "diskGb must be a multiple of 5"),
});

/** Fields a user may list in lifecycle.ignoreChanges. */
export const IGNORABLE_FIELDS = ["image", "region", "resources", "sshPublicKey", "userData", "terminationProtection", "power", "sshPort", "domains", "ports"] as const;

/** The API takes Basic Auth as a pair: a password alone is a 400 at apply time. */
export function requireUserWithPassword(domain: { basicAuthUser?: string | null | undefined; basicAuthPassword?: string | undefined }, ctx: z.RefinementCtx): void {
  if (domain.basicAuthPassword === undefined || (domain.basicAuthUser !== undefined && domain.basicAuthUser !== null)) return;
  ctx.addIssue({
    code: "custom",
    path: ["basicAuthPassword"],
    message: "basicAuthPassword needs basicAuthUser: add basicAuthUser: <name> to this domain (the API sets Basic Auth as a user and password pair)",
  });
}

export const DesiredDomain = z.strictObject({
  hostname: Hostname,
  port: z.number().int().min(1).max(65535),
  securityHeadersMode: SecurityHeadersMode.optional(),
  responseHeaderTimeoutSecs: z.number().int().min(10).max(3600).optional(),
  responseHeaderOverrides: HeaderOverrides.nullable().optional(),
  requestHeaderOverrides: HeaderOverrides.nullable().optional(),
  maxRequestBodyMb: z.number().int().min(1).max(10240).nullable().optional(),
  /** Strict here (unlike the API's response schema): a misspelt key would be dropped silently. */
  corsConfig: z.strictObject(CorsConfig.shape).nullable().optional(),
  originScheme: OriginScheme.optional(),
  responseCompression: z.boolean().optional(),
  ipAllowList: z.array(Cidr).max(50).nullable().optional(),
  ipDenyList: z.array(Cidr).max(50).nullable().optional(),
  proxyProtocol: ProxyProtocol.nullable().optional(),
  basicAuthUser: z.string().min(1).nullable().optional(),
  /** Only as an environment reference (`${env:NAME}`), checked by the loader before resolution. */
  basicAuthPassword: z.string().min(1).optional(),
}).superRefine(requireUserWithPassword);
export type DesiredDomain = z.infer<typeof DesiredDomain>;

export const DesiredPort = z.strictObject({
  cubePort: z.number().int().min(1).max(65535),
  label: z.string().max(100).optional(),
  udp: z.boolean().default(true),
  /** The allow-list (CIDRs). Empty or absent leaves the port open to the internet. */
  allow: z.array(Cidr).max(500).default([]),
});
export type DesiredPort = z.infer<typeof DesiredPort>;

export const Lifecycle = z.strictObject({
  allowReplace: z.boolean().default(false),
  ignoreChanges: z.array(z.enum(IGNORABLE_FIELDS)).default([]),
});

const cubeFields = {
  image: z.string().min(1),
  region: z.string().min(1),
  resources: DesiredResources,
  sshPublicKey: z.string().min(1),
  /** Path (relative to the file) of an OpenSSH public key; instead of sshPublicKey. */
  sshPublicKeyFile: z.string().min(1),
  userData: z.string(),
  /** Path (relative to the file) of a cloud-init script; instead of userData. */
  userDataFile: z.string().min(1),
  terminationProtection: z.boolean(),
  power: Power,
  sshPort: z.number().int().min(1).max(65535),
};

export const Defaults = z.strictObject({
  image: cubeFields.image.optional(),
  region: cubeFields.region.optional(),
  resources: cubeFields.resources.optional(),
  sshPublicKey: cubeFields.sshPublicKey.optional(),
  sshPublicKeyFile: cubeFields.sshPublicKeyFile.optional(),
  userData: cubeFields.userData.optional(),
  userDataFile: cubeFields.userDataFile.optional(),
  terminationProtection: cubeFields.terminationProtection.optional(),
  power: cubeFields.power.optional(),
  sshPort: cubeFields.sshPort.optional(),
});
export type Defaults = z.infer<typeof Defaults>;

export const DesiredCubeInput = z.strictObject({
  name: CubeName,
  /** Pins the cube to one live id when names are ambiguous or a cube was renamed out of band. */
  id: z.string().min(1).optional(),
  image: cubeFields.image.optional(),
  region: cubeFields.region.optional(),
  resources: cubeFields.resources.optional(),
  sshPublicKey: cubeFields.sshPublicKey.optional(),
  sshPublicKeyFile: cubeFields.sshPublicKeyFile.optional(),
  userData: cubeFields.userData.optional(),
  userDataFile: cubeFields.userDataFile.optional(),
  terminationProtection: cubeFields.terminationProtection.optional(),
  power: cubeFields.power.optional(),
  sshPort: cubeFields.sshPort.optional(),
  domains: z.array(DesiredDomain).default([]),
  ports: z.array(DesiredPort).default([]),
  lifecycle: Lifecycle.optional(),
});
export type DesiredCubeInput = z.infer<typeof DesiredCubeInput>;

/**
 * A webhook endpoint of the space. Identity: the url. The API cannot change an endpoint: any
 * difference replaces it, which mints a new signing secret.
 */
export const DesiredWebhook = z.strictObject({
  url: CreateWebhookRequest.shape.url,
  /** Event names of the API's list (cube.deleted, domain.removed, ...). */
  events: CreateWebhookRequest.shape.events,
  description: CreateWebhookRequest.shape.description,
  /** Where the signing secret is written (mode 0600) when the endpoint is created; relative to this file. */
  secretFile: z.string().min(1),
});
export type DesiredWebhook = z.infer<typeof DesiredWebhook>;

export const DesiredStateDocument = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  /** Space id; else CUBE_SPACE_ID, else the key's own space. */
  space: z.string().min(1).optional(),
  defaults: Defaults.optional(),
  /** Delete cubes of the space that this file does not declare (never protected ones). */
  prune: z.boolean().default(false),
  cubes: z.array(DesiredCubeInput).default([]),
  /** The space's webhook endpoints. Absent: webhooks are not managed (never reported or pruned). */
  webhooks: z.array(DesiredWebhook).optional(),
});
export type DesiredStateDocument = z.infer<typeof DesiredStateDocument>;
