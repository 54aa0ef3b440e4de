/**
 * The zod/mini schemas (see zod-english.ts) the desired-state file (desired.ts) shares with the API (api.ts exports them too):
 * their own module, so that `cubeform validate` builds these and the file's schema, not every schema of the API.
 */
import "./zod-english.js";
import * as z from "zod/mini";
import { addressProblem } from "./address.js";

/** The pattern editors see (JSON Schema); addressProblem() is the exact check. */
const CIDR = /^(?:(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?|[0-9A-Fa-f:]+:[0-9A-Fa-f:.]*(?:\/\d{1,3})?)$/;
export const Cidr = z.string().check(
  z.regex(CIDR, "must be an IPv4 or IPv6 address or CIDR, like 203.0.113.0/24 or 2001:db8::/32"),
  z.superRefine((text, ctx) => {
    const problem = CIDR.test(text) ? addressProblem(text) : undefined;
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  }),
);

/** Names become the hostname inside the Cube: 1–64 characters, letters, digits and inner hyphens. */
export const CubeName = z
  .string()
  .check(
    z.minLength(1, "name must not be empty"),
    z.maxLength(64, "name must be at most 64 characters"),
    z.regex(
      /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/,
      "name may contain letters, digits and hyphens, and must start and end with a letter or digit",
    ),
  );

/** A cube's size as a file declares it (a cube, `defaults:`, a preview's `resources:`). */
export const DesiredResources = z.strictObject({
  vcpu: z.number().check(z.int(), z.minimum(1)),
  ramGb: z.number().check(z.int(), z.minimum(1)),
  diskGb: z.number().check(
    z.int(),
    z.minimum(10),
    z.refine((n) => n % 5 === 0, "diskGb must be a multiple of 5"),
  ),
});

/** A whole number (z.int() as a check of z.number(): the same checks, messages and JSON Schema as z.number().int() of zod classic). */
export const int = () => z.number().check(z.int());
/** A TCP/UDP port number. */
export const portNumber = () => z.number().check(z.int(), z.minimum(1), z.maximum(65535));
/** The API's timestamps (ISO 8601 text, not checked). */
export const Timestamp = z.string();

export const SSH_KEY_PATTERN = /^(ssh-ed25519|ssh-rsa|ssh-dss|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9-]+@openssh\.com) [A-Za-z0-9+/=]+( .*)?$/;

export const USER_DATA_MAX_BYTES = 16 * 1024;

export const HeaderOverrides = z.object({
  set: z.optional(z.record(z.string(), z.string())),
  remove: z.optional(z.array(z.string())),
});
export type HeaderOverrides = z.infer<typeof HeaderOverrides>;

export const CorsConfig = z.object({
  allowedOrigins: z.array(z.string()).check(z.maxLength(20)),
  allowedMethods: z.optional(z.array(z.string()).check(z.maxLength(30))),
  allowedHeaders: z.optional(z.array(z.string()).check(z.maxLength(30))),
  exposedHeaders: z.optional(z.array(z.string()).check(z.maxLength(30))),
  allowCredentials: z.optional(z.boolean()),
  maxAgeSeconds: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(86400))),
});
export type CorsConfig = z.infer<typeof CorsConfig>;

export const SecurityHeadersMode = z.enum(["enforced", "app_managed"]);
export const OriginScheme = z.enum(["http", "https"]);

export const ProxyProtocol = z.enum(["v1", "v2"]);

/** A domain's proxy settings, each optional, as the API takes them (api.ts DomainSettings) and the file declares them (desired.ts DesiredDomain). */
export const domainSettingFields = {
  securityHeadersMode: z.optional(SecurityHeadersMode),
  responseHeaderTimeoutSecs: z.optional(z.number().check(z.int(), z.minimum(10), z.maximum(3600))),
  responseHeaderOverrides: z.optional(z.nullable(HeaderOverrides)),
  requestHeaderOverrides: z.optional(z.nullable(HeaderOverrides)),
  maxRequestBodyMb: z.optional(z.nullable(z.number().check(z.int(), z.minimum(1), z.maximum(10240)))),
  corsConfig: z.optional(z.nullable(CorsConfig)),
  originScheme: z.optional(OriginScheme),
  responseCompression: z.optional(z.boolean()),
  ipAllowList: z.optional(z.nullable(z.array(Cidr).check(z.maxLength(50)))),
  ipDenyList: z.optional(z.nullable(z.array(Cidr).check(z.maxLength(50)))),
  proxyProtocol: z.optional(z.nullable(ProxyProtocol)),
};

/**
 * The proxy settings a domain reports back as set, so a desired state can declare them and drift shows on them (basicAuthUser
 * goes with the write-only password; confirmMixedProxyProtocol is a request flag).
 */
export const DOMAIN_PROXY_SETTINGS = [
  "securityHeadersMode",
  "responseHeaderTimeoutSecs",
  "responseHeaderOverrides",
  "requestHeaderOverrides",
  "maxRequestBodyMb",
  "corsConfig",
  "originScheme",
  "responseCompression",
  "ipAllowList",
  "ipDenyList",
  "proxyProtocol",
] as const satisfies readonly (keyof typeof domainSettingFields)[];
/** Every domain setting a desired state, a Pulumi Domain or the engine's view of a domain declares (the password aside). */
export const DOMAIN_DECLARED_SETTINGS = [...DOMAIN_PROXY_SETTINGS, "basicAuthUser"] as const;

const HOSTNAME = /^(\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
export const Hostname = z
  .string()
  .check(z.maxLength(253), z.regex(HOSTNAME, "domain must be a lowercase hostname such as app.example.com or *.example.com"));

export const WEBHOOK_EVENTS = [
  "cube.created",
  "cube.running",
  "cube.stopped",
  "cube.error",
  "cube.deleted",
  "cube.cold_restarted",
  "cube.transfer.started",
  "cube.transfer.completed",
  "cube.transfer.failed",
  "cube.resize.started",
  "cube.resize.completed",
  "cube.resize.failed",
  "resource.alert.memory",
  "resource.alert.cpu",
  "resource.alert.disk",
  "domain.alert.error_4xx",
  "domain.alert.error_5xx",
  "snapshot.created",
  "snapshot.restored",
  "snapshot.deleted",
  "snapshot.pinned",
  "snapshot.promoted_to_backup",
  "snapshot.exported",
  "backup.created",
  "backup.deleted",
  "backup.redeployed",
  "domain.added",
  "domain.active",
  "domain.removed",
  "tcp_mapping.added",
  "tcp_mapping.removed",
  "tcp_mapping.updated",
  "hosting.provisioned",
  "hosting.suspended",
  "hosting.unsuspended",
  "hosting.deleted",
  "hosting.plan_changed",
  "hosting.renewed",
  "hosting.cancellation_scheduled",
  "hosting.suspended_for_non_payment",
  "hosting.deleted_after_recovery",
  "member.invited",
  "member.joined",
  "member.removed",
  "member.role_changed",
] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** A webhook endpoint as the API creates it (api.ts CreateWebhookRequest) and the file declares it (desired.ts DesiredWebhook). */
export const webhookFields = {
  url: z.url(),
  /** Event names of WEBHOOK_EVENTS (cube.deleted, domain.removed, ...). */
  events: z.array(WebhookEvent).check(z.minLength(1)),
  description: z.optional(z.string().check(z.maxLength(500))),
};
