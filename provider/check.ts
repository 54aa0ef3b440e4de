/** check(): Pulumi inputs against the API's zod schemas, EVERY problem a per-property failure; never throws; unknown values are not judged. */
import * as z from "zod/mini";
import { AttachDomainRequest, Cidr, CreateCubeRequest, CreateWebhookRequest, DomainSettings, Hostname } from "../schema/api.js";
import { DesiredDomain, DesiredPort, Power, requireUserWithPassword } from "../schema/desired.js";
import { formatIssuePath } from "../schema/issue-path.js";
import { withCurrentNames, type AliasedKind } from "./aliases.js";

/** rpc.unknownValue: what an input that is not known yet (preview) looks like to the provider. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Where Pulumi keeps the serialized provider among a dynamic resource's properties. */
export const PROVIDER_KEY = "__provider";

export type CheckFailure = { property: string; reason: string };
export type CheckOutcome = { inputs: Record<string, unknown>; failures: CheckFailure[] };

const CubeId = z.string().check(z.minLength(1, "cubeId must not be empty"));
const AdoptId = z.optional(z.string().check(z.minLength(1, "adoptId must not be empty")));

export const CubeInputSchema = z.extend(CreateCubeRequest, {
  power: z.optional(Power),
  sshPort: z.optional(z.number().check(z.int("sshPort must be a whole number"), z.minimum(1), z.maximum(65535))),
  adoptId: AdoptId,
});

export const DomainInputSchema = z
  .extend(z.omit(DomainSettings, { confirmMixedProxyProtocol: true }), {
    port: AttachDomainRequest.shape.port,
    cubeId: CubeId,
    hostname: Hostname,
    basicAuthPassword: z.optional(z.string().check(z.minLength(1, "basicAuthPassword must not be empty"))),
    ipAllowList: DesiredDomain.shape.ipAllowList,
    ipDenyList: DesiredDomain.shape.ipDenyList,
    adoptId: AdoptId,
  })
  .check(z.superRefine(requireUserWithPassword));

/** The file's port entry (`udp`, `allow`) without its defaults: an absent input stays absent. */
export const TcpMappingInputSchema = z.strictObject({
  cubeId: CubeId,
  cubePort: DesiredPort.shape.cubePort,
  label: DesiredPort.shape.label,
  udp: z.optional(z.boolean()),
  allow: z.optional(z.array(Cidr).check(z.maxLength(500))),
  adoptId: AdoptId,
});

/** The API's create body: url, events from the API's list, description. */
export const WebhookInputSchema = CreateWebhookRequest;

/** The user's inputs without Pulumi's own `__provider`. */
export function userInputs(props: Record<string, unknown>): Record<string, unknown> {
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  return rest;
}

function withoutNulls(props: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(props).filter(([, value]) => value !== null));
}

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** True when the issue's value, or any value on its way from the root, is not known yet. */
function isAboutUnknown(root: unknown, path: readonly PropertyKey[]): boolean {
  return path.some((_, depth) => valueAt(root, path.slice(0, depth)) === UNKNOWN) || valueAt(root, path) === UNKNOWN;
}

function failuresOf(issue: z.core.$ZodIssue, inputs: unknown): CheckFailure[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      property: formatIssuePath([...issue.path, key]),
      reason: `unknown property ${JSON.stringify(key)}`,
    }));
  }
  const property = formatIssuePath(issue.path);
  const missing = issue.code === "invalid_type" && valueAt(inputs, issue.path) === undefined;
  return [{ property, reason: missing ? `${property} is required` : issue.message }];
}

/** `dropNulls`: a null top-level input is "not set" (no field is nullable); `aliases`: the kind whose deprecated input names are renamed. */
export function checkInputs(
  schema: z.ZodMiniType,
  news: Record<string, unknown>,
  options: { dropNulls: boolean; aliases?: AliasedKind },
): CheckOutcome {
  const given = options.aliases ? withCurrentNames(options.aliases, userInputs(news)) : userInputs(news);
  const inputs = options.dropNulls ? withoutNulls(given) : given;
  const result = schema.safeParse(inputs);
  if (result.success) return { inputs, failures: [] };
  const failures = result.error.issues.filter((issue) => !isAboutUnknown(inputs, issue.path)).flatMap((issue) => failuresOf(issue, inputs));
  return { inputs, failures };
}
