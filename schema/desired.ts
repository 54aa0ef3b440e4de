/** The desired-state document (cubeform.yaml), in zod/mini (see zod-english.ts); schema/generate.ts makes the editors' JSON Schema of it. */
import "./zod-english.js";
import * as z from "zod/mini";
import { Cidr, CorsConfig, CubeName, DesiredResources, domainSettingFields, webhookFields } from "./common.js";
import { policySchemas } from "./policy.js";
import { PreviewBlock } from "./preview.js";

export const API_VERSION = "cubeform/v1";

export const Power = z.enum(["running", "stopped"]);
export type Power = z.infer<typeof Power>;

export { DesiredResources };

/** Fields a user may list in lifecycle.ignoreChanges. */
export const IGNORABLE_FIELDS = [
  "image",
  "region",
  "resources",
  "sshPublicKey",
  "userData",
  "terminationProtection",
  "power",
  "sshPort",
  "domains",
  "ports",
] as const;

/** The API takes Basic Auth as a pair: a password alone is a 400 at apply time. */
export function requireUserWithPassword(
  domain: { basicAuthUser?: string | null | undefined; basicAuthPassword?: string | undefined },
  ctx: z.core.$RefinementCtx,
): void {
  if (domain.basicAuthPassword === undefined || (domain.basicAuthUser !== undefined && domain.basicAuthUser !== null)) return;
  ctx.addIssue({
    code: "custom",
    path: ["basicAuthPassword"],
    message:
      "basicAuthPassword needs basicAuthUser: add basicAuthUser: <name> to this domain (the API sets Basic Auth as a user and password pair)",
  });
}

/** A label character, or a member's `{i}` / `{name}` (a group of replicas gives each member its own hostname). */
const LABEL_PART = String.raw`(?:[a-z0-9]|\{i\}|\{name\})`;
const DESIRED_HOSTNAME = new RegExp(String.raw`^(\*\.)?(?:${LABEL_PART}(?:(?:[a-z0-9-]|\{i\}|\{name\})*${LABEL_PART})?\.)+[a-z]{2,63}$`);

/** A hostname, in which `{i}` and `{name}` stand for a replica's index and name (checked again once expanded). */
export const DesiredHostname = z
  .string()
  .check(
    z.maxLength(253),
    z.regex(
      DESIRED_HOSTNAME,
      "domain must be a lowercase hostname such as app.example.com or *.example.com ({i} and {name} stand for a replica's index and name)",
    ),
  );

export const DesiredDomain = z
  .strictObject({
    hostname: DesiredHostname,
    port: z.number().check(z.int(), z.minimum(1), z.maximum(65535)),
    ...domainSettingFields,
    /** Strict here (unlike the API's schemas): a misspelt key would be dropped silently. */
    corsConfig: z.optional(z.nullable(z.strictObject(CorsConfig.shape))),
    basicAuthUser: z.optional(z.nullable(z.string().check(z.minLength(1)))),
    /** Only as an environment reference (`${env:NAME}`), checked by the loader before resolution. */
    basicAuthPassword: z.optional(z.string().check(z.minLength(1))),
  })
  .check(z.superRefine(requireUserWithPassword));
export type DesiredDomain = z.infer<typeof DesiredDomain>;

export const DesiredPort = z.strictObject({
  cubePort: z.number().check(z.int(), z.minimum(1), z.maximum(65535)),
  label: z.optional(z.string().check(z.maxLength(100))),
  udp: z._default(z.boolean(), true),
  /** The allow-list (CIDRs). Empty or absent leaves the port open to the internet. */
  allow: z._default(z.array(Cidr).check(z.maxLength(500)), []),
});
export type DesiredPort = z.infer<typeof DesiredPort>;

export const Lifecycle = z.strictObject({
  allowReplace: z._default(z.boolean(), false),
  ignoreChanges: z._default(z.array(z.enum(IGNORABLE_FIELDS)), []),
});

/** "500ms", "30s", "10m", "1h". */
export const RolloutDuration = z.string().check(z.regex(/^\d+(?:\.\d+)?(?:ms|s|m|h)$/, "must be a duration such as 500ms, 30s, 10m or 1h"));

const port = () => z.number().check(z.int(), z.minimum(1), z.maximum(65535));

/** How a member is found healthy: one of http, tcp or running (the default). `{name}` `{i}` `{id}` `{hostname}` `{publicIpv4}` are the member's. */
export const HealthCheck = z
  .strictObject({
    http: z.optional(
      z.strictObject({
        url: z.string().check(z.minLength(1)),
        expectStatus: z._default(z.number().check(z.int(), z.minimum(100), z.maximum(599)), 200),
      }),
    ),
    tcp: z.optional(z.strictObject({ port: port() })),
    running: z.optional(z.literal(true)),
    /** The check must pass continuously this long. */
    healthyFor: z._default(RolloutDuration, "10s"),
    /** One member's replacement must be healthy within this long. */
    deadline: z._default(RolloutDuration, "10m"),
  })
  .check(
    z.refine(
      (check) => [check.http, check.tcp, check.running].filter((kind) => kind !== undefined).length <= 1,
      "set one of http, tcp or running, not several",
    ),
  );
export type HealthCheck = z.infer<typeof HealthCheck>;

/** How a group of replicas is replaced: in batches, each gated by its health check. */
export const Rollout = z.strictObject({
  /** Members being replaced (or failing health) at once. */
  maxUnavailable: z._default(z.number().check(z.int(), z.minimum(1)), 1),
  /** Replace this many first, on their own. */
  canary: z._default(z.number().check(z.int(), z.minimum(0)), 0),
  healthCheck: z.optional(HealthCheck),
  /** On a failed check: stop, and put the failed members back on the last healthy spec. */
  autoRevert: z._default(z.boolean(), false),
});
export type Rollout = z.infer<typeof Rollout>;

/** At most this many replicas per entry. */
export const MAX_REPLICAS = 1000;

/** The fields a cube may set, each optional: what `defaults:` may set for every cube. */
const optionalCubeFields = {
  image: z.optional(z.string().check(z.minLength(1))),
  region: z.optional(z.string().check(z.minLength(1))),
  resources: z.optional(DesiredResources),
  sshPublicKey: z.optional(z.string().check(z.minLength(1))),
  /** Path (relative to the file) of an OpenSSH public key; instead of sshPublicKey. */
  sshPublicKeyFile: z.optional(z.string().check(z.minLength(1))),
  userData: z.optional(z.string()),
  /** Path (relative to the file) of a cloud-init script; instead of userData. */
  userDataFile: z.optional(z.string().check(z.minLength(1))),
  terminationProtection: z.optional(z.boolean()),
  power: z.optional(Power),
  sshPort: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(65535))),
  /** How a group of replicas is replaced (an entry with `replicas`). */
  rollout: z.optional(Rollout),
};

export const Defaults = z.strictObject(optionalCubeFields);
export type Defaults = z.infer<typeof Defaults>;

export const DesiredCubeInput = z.strictObject({
  name: CubeName,
  /** Pins the cube to one live id when names are ambiguous or a cube was renamed out of band. */
  id: z.optional(z.string().check(z.minLength(1))),
  ...optionalCubeFields,
  domains: z._default(z.array(DesiredDomain), []),
  ports: z._default(z.array(DesiredPort), []),
  lifecycle: z.optional(Lifecycle),
  /** A group: members NAME-1 … NAME-N, each a cube of this entry's spec. */
  replicas: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_REPLICAS))),
});
export type DesiredCubeInput = z.infer<typeof DesiredCubeInput>;

/** A webhook endpoint of the space, by url. The API cannot change one: any difference replaces it, with a new signing secret. */
export const DesiredWebhook = z.strictObject({
  ...webhookFields,
  /** Where the signing secret is written (mode 0600) when the endpoint is created; relative to this file. */
  secretFile: z.string().check(z.minLength(1)),
});
export type DesiredWebhook = z.infer<typeof DesiredWebhook>;

/** Warnings a file may silence, by kind (`warnings: { ignore: [disk-cap] }`): a space's raised caps. */
export const WARNING_KINDS = ["vcpu-cap", "ram-cap", "disk-cap"] as const;
export type WarningKind = (typeof WARNING_KINDS)[number];

export const DesiredStateDocument = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  /** Space id; else CUBE_SPACE_ID, else the key's own space. */
  space: z.optional(z.string().check(z.minLength(1))),
  defaults: z.optional(Defaults),
  /** Delete cubes of the space that this file does not declare (never protected ones). */
  prune: z._default(z.boolean(), false),
  /** A file that declares no cubes prunes only with this set: an empty source (a wrong path, an empty checkout) is refused otherwise. */
  allowEmpty: z.optional(z.boolean()),
  cubes: z._default(z.array(DesiredCubeInput), []),
  /** The space's webhook endpoints. Absent: webhooks are not managed (never reported or pruned). */
  webhooks: z.optional(z.array(DesiredWebhook)),
  /** Kinds of warning this fleet has read and silences. */
  warnings: z.optional(z.strictObject({ ignore: z._default(z.array(z.enum(WARNING_KINDS)), []) })),
  /** A monthly ceiling in the API's currency (GET /pricing): apply refuses a change that adds cost above it. */
  budget: z.optional(z.strictObject({ monthly: z.number().check(z.positive()) })),
  /** Policy rules this fleet adds; it may not disable or weaken a policy file's rule of the same name. */
  policies: z.optional(z.lazy(() => z.array(policySchemas().PolicyRule))),
  /** How `cubeform preview up` copies this fleet per pull request (schema/preview.ts). */
  preview: z.optional(PreviewBlock),
});
export type DesiredStateDocument = z.infer<typeof DesiredStateDocument>;
