/**
 * The API answers every plan reads: cubes, their domains and TCP mappings (by the thousand), pagination, prices, regions and
 * images (api.ts exports them too). zod/mini (see zod-english.ts), in a module of their own: the client's quick check
 * (client/fast-check.ts) takes its field tables from these shapes, and a plan must not build every API schema for that.
 */
import "./zod-english.js";
import * as z from "zod/mini";
import { CorsConfig, HeaderOverrides, int, OriginScheme, ProxyProtocol, SecurityHeadersMode, Timestamp } from "./common.js";

/** When the API made and last changed a resource (not every answer says). */
const stamps = { createdAt: z.optional(Timestamp), updatedAt: z.optional(Timestamp) };
/** A resource of one cube (its domains, its TCP mappings): its id and its cube's. */
export const cubePart = { id: z.string(), cubeId: z.string() };

export const CubeState = z.enum(["pending", "booting", "running", "stopped", "stopping", "resizing", "error", "deleted"]);
export type CubeState = z.infer<typeof CubeState>;

export const Pagination = z.object({ page: int(), limit: int(), total: int(), totalPages: int() });
export type Pagination = z.infer<typeof Pagination>;

export const CubeResources = z.object({
  vcpu: int(),
  /** The spec says integer, the reference says number: accept any number. */
  ramGb: z.number(),
  diskGb: int(),
});
export type CubeResources = z.infer<typeof CubeResources>;

export const Cube = z.object({
  id: z.string(),
  name: z.string(),
  state: CubeState,
  publicIpv4: z.nullable(z.string()),
  image: z.string(),
  sshUser: z.string(),
  resources: CubeResources,
  terminationProtection: z.boolean(),
  terminationProtectionChangedAt: z.nullable(Timestamp),
  /** "user:<id>" for customer toggles, "admin:<id>" for operator changes (reference). */
  terminationProtectionChangedBy: z.nullable(z.string()),
  costPerHour: z.optional(z.number()),
  serverDomain: z.optional(z.nullable(z.string())),
  region: z.optional(z.string()),
  ...stamps,
});
export type Cube = z.infer<typeof Cube>;

export const Domain = z.object({
  ...cubePart,
  domain: z.string(),
  port: z.nullable(int()),
  status: z.string(),
  ingressStatus: z.optional(z.nullable(z.string())),
  securityHeadersMode: z.optional(SecurityHeadersMode),
  responseHeaderTimeoutSecs: z.optional(int()),
  responseHeaderOverrides: z.optional(z.nullable(HeaderOverrides)),
  requestHeaderOverrides: z.optional(z.nullable(HeaderOverrides)),
  maxRequestBodyMb: z.optional(z.nullable(int())),
  responseCompression: z.optional(z.boolean()),
  ipAllowList: z.optional(z.nullable(z.array(z.string()))),
  ipDenyList: z.optional(z.nullable(z.array(z.string()))),
  basicAuthUser: z.optional(z.nullable(z.string())),
  basicAuthEnabled: z.optional(z.boolean()),
  corsConfig: z.optional(z.nullable(CorsConfig)),
  /** Not in the reference's Domain schema; the emulator returns them so drift can be seen. */
  originScheme: z.optional(OriginScheme),
  proxyProtocol: z.optional(z.nullable(ProxyProtocol)),
  isWildcard: z.boolean(),
  wildcardCertState: z.optional(z.nullable(z.enum(["pending_delegation", "issuing", "ready", "failed"]))),
  acmeDelegationTarget: z.optional(z.nullable(z.string())),
  ...stamps,
});
export type Domain = z.infer<typeof Domain>;

export const TcpMapping = z.object({
  ...cubePart,
  cubePort: int(),
  hostPort: int(),
  host: z.nullable(z.string()),
  label: z.nullable(z.string()),
  status: z.string(),
  isSsh: z.boolean(),
  udpEnabled: z.boolean(),
  whitelistedIps: z.array(z.object({ id: z.string(), cidr: z.string() })),
  ...stamps,
});
export type TcpMapping = z.infer<typeof TcpMapping>;

export const Region = z.object({ id: z.string(), name: z.string(), slug: z.string() });
export type Region = z.infer<typeof Region>;

export const Image = z.object({ id: z.string(), name: z.string(), version: z.string(), description: z.string(), defaultUser: z.string() });
export type Image = z.infer<typeof Image>;

export const PricingTier = z.object({
  minVcpus: int(),
  maxVcpus: z.nullable(int()),
  multiplier: z.number(),
  label: z.string(),
});
export const Pricing = z.object({
  currency: z.string(),
  rates: z.object({ vcpuPerHour: z.number(), ramGbPerHour: z.number(), diskGbPerHour: z.number() }),
  tiers: z.array(PricingTier),
  note: z.string(),
});
export type Pricing = z.infer<typeof Pricing>;
