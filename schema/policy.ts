/**
 * Policy rules (issue 36): a policy file (`kind: Policy`), kept apart from the fleet, and the `policies:` a fleet file may add.
 * Each rule has a name, a match, an enforcement and exactly one kind of check (RULE_KINDS).
 */
import "./zod-english.js";
import * as z from "zod/mini";

/** The fleet file's apiVersion (desired.ts imports this module for `policies:`, so it is not imported from there). */
const API_VERSION = "cubeform/v1";
export const POLICY_KIND = "Policy";

export const Enforcement = z.enum(["advisory", "mandatory"]);
export type Enforcement = z.infer<typeof Enforcement>;

const RuleName = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(100),
    z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a rule name may contain letters, digits, '.', '_' and '-'"),
  );
const Glob = z.string().check(z.minLength(1));
const Positive = z.number().check(z.positive());

export const PolicyMatch = z.strictObject({
  /** Cube name globs (`*` any run of characters, `?` one); absent: every cube. */
  names: z.optional(z.array(Glob).check(z.minLength(1))),
  /** Groups of replicas by the entry's name: its members are NAME-1 … NAME-N. */
  groups: z.optional(z.array(Glob).check(z.minLength(1))),
  /** Preview cubes (names ending in -pr-N): include (default), exclude, or only. */
  previews: z.optional(z.enum(["include", "exclude", "only"])),
});
export type PolicyMatch = z.infer<typeof PolicyMatch>;

/** What a rule refuses: each flag a check of its own. */
export const DenyChecks = z.strictObject({
  /** A published port without `allow`, or allowing 0.0.0.0/0 or ::/0. */
  portsOpenToInternet: z.optional(z.boolean()),
  /** A published port with udp on. */
  udpPorts: z.optional(z.boolean()),
  /** A domain with neither basic auth nor an IP allow list. */
  domainsWithoutAccessControl: z.optional(z.boolean()),
});

/** What a rule allows, as globs: anything else is a violation. */
export const AllowedChecks = z.strictObject({
  images: z.optional(z.array(Glob).check(z.minLength(1))),
  regions: z.optional(z.array(Glob).check(z.minLength(1))),
  /** Hosts a webhook endpoint's url may name (`*.example.com` for subdomains). */
  webhookHosts: z.optional(z.array(Glob).check(z.minLength(1))),
});

export const MaxChecks = z.strictObject({
  vcpu: z.optional(Positive),
  ramGb: z.optional(Positive),
  diskGb: z.optional(Positive),
  /** A cube's monthly cost after the change, in the API's currency. */
  monthlyCostPerCube: z.optional(Positive),
  /** A group of replicas' monthly cost after the change (its members' together), in the API's currency. */
  monthlyCostPerGroup: z.optional(Positive),
  /** What the change adds to the fleet's monthly cost. */
  monthlyCostIncrease: z.optional(Positive),
});

export const RequireChecks = z.strictObject({
  terminationProtection: z.optional(z.literal(true)),
});

export const ReplicasChecks = z.strictObject({
  min: z.optional(z.number().check(z.int(), z.minimum(0))),
  max: z.optional(z.number().check(z.int(), z.minimum(1))),
});

export const RULE_KINDS = ["deny", "allowed", "max", "require", "replicas"] as const;

export const PolicyRule = z
  .strictObject({
    name: RuleName,
    description: z.optional(z.string().check(z.maxLength(500))),
    enforcement: Enforcement,
    match: z.optional(PolicyMatch),
    deny: z.optional(DenyChecks),
    allowed: z.optional(AllowedChecks),
    max: z.optional(MaxChecks),
    require: z.optional(RequireChecks),
    replicas: z.optional(ReplicasChecks),
  })
  .check(z.superRefine(exactlyOneKind));
export type PolicyRule = z.infer<typeof PolicyRule>;

function exactlyOneKind(rule: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const kinds = RULE_KINDS.filter((kind) => rule[kind] !== undefined);
  if (kinds.length !== 1) {
    const message =
      kinds.length === 0
        ? `a rule needs one check: ${RULE_KINDS.join(", ")}`
        : `a rule has one check, this one has ${kinds.join(" and ")}: make one rule of each`;
    ctx.addIssue({ code: "custom", path: kinds.length > 1 ? [kinds[1] as string] : [], message });
    return;
  }
  const checks = rule[kinds[0] as string] as Record<string, unknown>;
  if (!Object.values(checks).some((v) => v !== undefined && v !== false))
    ctx.addIssue({ code: "custom", path: [kinds[0] as string], message: `${kinds[0]} checks nothing: set one of its keys` });
}

export const PolicyDocument = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(POLICY_KIND),
  rules: z.array(PolicyRule),
});
export type PolicyDocument = z.infer<typeof PolicyDocument>;
