/** The validated document → DesiredState: merges defaults, reads files, makes SecretRefs, checks what the schema cannot; every issue at once. */
import { SSH_KEY_PATTERN, USER_DATA_MAX_BYTES } from "../schema/common.js";
import type { Defaults, DesiredCubeInput, DesiredDomain, DesiredPort, DesiredStateDocument, DesiredWebhook } from "../schema/desired.js";
import { DEFAULT_SSH_PORT, groupIssues, groupSpec, memberHostname, memberInput, memberNameIssues } from "../engine/light.js";
import type {
  DesiredCubeSpec,
  DesiredDomainSpec,
  DesiredGroupSpec,
  DesiredPortSpec,
  DesiredState,
  DesiredWebhookSpec,
} from "../engine/types.js";
import { exactEnvRef, PASSWORD_NOT_A_REFERENCE } from "./env.js";
import type { FileAccess } from "./file-access.js";
import { DesiredStateError, InputProblem, type DesiredStateIssue, type LoadInput } from "./errors.js";

type Path = (string | number)[];

class IssueList {
  readonly issues: DesiredStateIssue[] = [];
  add(path: Path, message: string, input?: LoadInput): void {
    const key = JSON.stringify([path, message]);
    if (this.issues.some((issue) => JSON.stringify([issue.path, issue.message]) === key)) return;
    this.issues.push(input === undefined ? { path, message } : { path, message, input });
  }
}

export function normalize(doc: DesiredStateDocument, options: FileAccess): DesiredState {
  const issues = new IssueList();
  const defaults = doc.defaults ?? {};
  const defaultKey = readPair(defaults, ["defaults"], "sshPublicKey", "sshPublicKeyFile", options, issues);
  const defaultUserData = readPair(defaults, ["defaults"], "userData", "userDataFile", options, issues);
  const inputs = doc.cubes ?? [];
  const cubes: DesiredCubeSpec[] = [];
  const groups: DesiredGroupSpec[] = [];
  inputs.forEach((input, index) => {
    const inherited = { defaults, defaultKey, defaultUserData };
    const problems = groupIssues(input, ["cubes", index]);
    for (const problem of problems) issues.add(problem.path, problem.message);
    if (input.replicas === undefined) {
      const cube = normalizeCube(input, ["cubes", index], inherited, options, issues);
      if (cube) cubes.push(cube);
      return;
    }
    groups.push(groupSpec({ ...input, replicas: input.replicas }, input.rollout ?? defaults.rollout));
    if (problems.length > 0) return;
    for (let i = 1; i <= input.replicas; i++) {
      const cube = normalizeCube(memberInput(input, i), ["cubes", index], inherited, options, issues);
      if (cube) cubes.push(Object.assign(cube, { group: { group: input.name, index: i } }));
    }
  });
  for (const issue of duplicateIssues(inputs)) issues.add(issue.path, issue.message);
  for (const issue of memberNameIssues(inputs)) issues.add(issue.path, issue.message);
  const webhooks = doc.webhooks === undefined ? undefined : normalizeWebhooks(doc.webhooks, options, issues);
  if (issues.issues.length > 0) throw new DesiredStateError(issues.issues);
  const ignoreWarnings = doc.warnings?.ignore.length ? doc.warnings.ignore : undefined;
  const budget = doc.budget && { monthly: doc.budget.monthly };
  const allowEmpty = doc.allowEmpty === true ? true : undefined;
  const policies = doc.policies?.length ? doc.policies : undefined;
  return {
    prune: doc.prune ?? false,
    cubes,
    ...definedOnly({
      spaceId: doc.space,
      allowEmpty,
      webhooks,
      ignoreWarnings,
      budget,
      policies,
      groups: groups.length > 0 ? groups : undefined,
      preview: doc.preview,
    }),
  };
}

function normalizeWebhooks(inputs: DesiredWebhook[], options: FileAccess, issues: IssueList): DesiredWebhookSpec[] {
  const seenUrls = new Map<string, number>();
  const seenFiles = new Map<string, number>();
  return inputs.map((input, index) => {
    const path = ["webhooks", index];
    const firstUrl = seenBefore(seenUrls, input.url, index);
    if (firstUrl !== undefined)
      issues.add([...path, "url"], `${input.url} is already declared by webhooks[${firstUrl}]; one endpoint per url`);
    const secretPath = resolveSecretPath(input.secretFile, options, issues, [...path, "secretFile"]);
    const firstFile = seenBefore(seenFiles, secretPath, index);
    if (firstFile !== undefined)
      issues.add(
        [...path, "secretFile"],
        `${input.secretFile} is already the secretFile of webhooks[${firstFile}]; each endpoint needs its own`,
      );
    return {
      url: input.url,
      events: [...new Set(input.events)],
      secretFile: input.secretFile,
      secretPath,
      ...definedOnly({ description: input.description }),
    };
  });
}

/** resolvePath may refuse a path (a fleet from a repository): that is an issue at the field. */
function resolveSecretPath(secretFile: string, options: FileAccess, issues: IssueList, path: Path): string {
  if (!options.resolvePath) return secretFile;
  try {
    return options.resolvePath(secretFile);
  } catch (e) {
    issues.add(path, `${secretFile}: ${(e as Error).message}`, e instanceof InputProblem ? e.input : undefined);
    return secretFile;
  }
}

interface InheritedValues {
  defaults: Defaults;
  defaultKey: string | undefined;
  defaultUserData: string | undefined;
}

type PairHolder = Partial<Record<"sshPublicKey" | "sshPublicKeyFile" | "userData" | "userDataFile", string>>;

/** Cube-level pair (inline or file) when the cube declares either, else undefined. */
function readPair(
  holder: PairHolder,
  path: Path,
  inline: "sshPublicKey" | "userData",
  file: "sshPublicKeyFile" | "userDataFile",
  options: FileAccess,
  issues: IssueList,
): string | undefined {
  const inlineValue = holder[inline];
  const filePath = holder[file];
  if (inlineValue !== undefined && filePath !== undefined) {
    issues.add([...path, file], `set either ${inline} or ${file}, not both`);
    return undefined;
  }
  if (inlineValue !== undefined) return inlineValue;
  if (filePath === undefined) return undefined;
  try {
    const text = options.readTextFile(filePath, file);
    return inline === "sshPublicKey" ? text.trimEnd() : text;
  } catch (e) {
    issues.add([...path, file], `cannot read ${filePath}: ${(e as Error).message}`);
    return undefined;
  }
}

function declaresPair(holder: PairHolder, inline: "sshPublicKey" | "userData", file: "sshPublicKeyFile" | "userDataFile"): boolean {
  return holder[inline] !== undefined || holder[file] !== undefined;
}

function normalizeCube(
  input: DesiredCubeInput,
  path: Path,
  inherited: InheritedValues,
  options: FileAccess,
  issues: IssueList,
): DesiredCubeSpec | undefined {
  const { defaults } = inherited;
  const sshPublicKey = declaresPair(input, "sshPublicKey", "sshPublicKeyFile")
    ? readPair(input, path, "sshPublicKey", "sshPublicKeyFile", options, issues)
    : inherited.defaultKey;
  const userData = declaresPair(input, "userData", "userDataFile")
    ? readPair(input, path, "userData", "userDataFile", options, issues)
    : inherited.defaultUserData;
  const image = input.image ?? defaults.image;
  const resources = input.resources ?? defaults.resources;
  const before = issues.issues.length;
  if (image === undefined) issues.add([...path, "image"], "image is required (set it on the cube or in defaults)");
  if (resources === undefined) issues.add([...path, "resources"], "resources are required (set them on the cube or in defaults)");
  checkSshKey(input, path, sshPublicKey, defaults, issues);
  checkUserData(input, path, userData, issues);
  const domains = normalizeDomains(input.domains ?? [], [...path, "domains"], issues);
  const sshPort = input.sshPort ?? defaults.sshPort;
  const ports = normalizePorts(input.ports ?? [], [...path, "ports"], sshPort ?? DEFAULT_SSH_PORT, issues);
  if (issues.issues.length > before || image === undefined || resources === undefined || sshPublicKey === undefined) return undefined;
  const spec: DesiredCubeSpec = {
    name: ownString(input.name),
    image,
    resources: { ...resources },
    sshPublicKey: ownString(sshPublicKey),
    domains,
    ports,
    lifecycle: { allowReplace: input.lifecycle?.allowReplace ?? false, ignoreChanges: [...(input.lifecycle?.ignoreChanges ?? [])] },
  };
  const optional: Partial<DesiredCubeSpec> = {
    id: input.id,
    region: input.region ?? defaults.region,
    userData,
    terminationProtection: input.terminationProtection ?? defaults.terminationProtection,
    power: input.power ?? defaults.power,
    sshPort,
  };
  // Only the fields that have a value: an absent one is not managed.
  return Object.assign(spec, definedOnly(optional));
}

function checkSshKey(input: DesiredCubeInput, path: Path, key: string | undefined, defaults: Defaults, issues: IssueList): void {
  const defaultsDeclareKey = declaresPair(defaults, "sshPublicKey", "sshPublicKeyFile");
  const defaultKeyField = defaults.sshPublicKeyFile !== undefined ? "sshPublicKeyFile" : "sshPublicKey";
  const ownField = input.sshPublicKeyFile !== undefined ? "sshPublicKeyFile" : "sshPublicKey";
  const declared = declaresPair(input, "sshPublicKey", "sshPublicKeyFile");
  if (key === undefined) {
    if (!declared && !defaultsDeclareKey)
      issues.add([...path, "sshPublicKey"], "an SSH key is required: set sshPublicKey or sshPublicKeyFile on the cube or in defaults");
    return;
  }
  const where = declared ? [...path, ownField] : ["defaults", defaultKeyField];
  const control = controlCharacter(key);
  if (control !== undefined)
    issues.add(
      where,
      `the key holds a control character (${control}): a public key is one line of printable text, and the API would store it as sent`,
    );
  else if (!SSH_KEY_PATTERN.test(key))
    issues.add(
      where,
      "not an OpenSSH public key (expected ssh-ed25519, ssh-rsa, ecdsa-sha2-*, ssh-dss or sk-*@openssh.com followed by the key)",
    );
}

/** "U+0000 at character 43" for the first control character (a NUL, an escape) in `text`. */
function controlCharacter(text: string): string | undefined {
  const match = /\p{Cc}/u.exec(text);
  if (match === null) return undefined;
  return `U+${(match[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")} at character ${match.index + 1}`;
}

function checkUserData(input: DesiredCubeInput, path: Path, userData: string | undefined, issues: IssueList): void {
  if (userData === undefined || Buffer.byteLength(userData, "utf8") <= USER_DATA_MAX_BYTES) return;
  const field = input.userDataFile !== undefined ? "userDataFile" : "userData";
  issues.add([...path, field], `userData is ${Buffer.byteLength(userData, "utf8")} bytes; the API allows at most ${USER_DATA_MAX_BYTES}`);
}

function normalizeDomains(domains: DesiredDomain[], path: Path, issues: IssueList): DesiredDomainSpec[] {
  return domains.map((domain, index) => {
    const { hostname, port, basicAuthPassword, ...settings } = domain;
    const spec: DesiredDomainSpec = { hostname: ownString(hostname), port, settings: definedOnly(settings) };
    if (basicAuthPassword !== undefined) {
      const env = exactEnvRef(basicAuthPassword);
      if (env !== undefined) spec.basicAuthPassword = { env };
      else issues.add([...path, index, "basicAuthPassword"], PASSWORD_NOT_A_REFERENCE);
    }
    return spec;
  });
}

/**
 * The same text as a string of its own. A parser's value is often a V8 "sliced string", which keeps the whole text it was
 * cut from alive (each hostname held its cube's YAML, ~3.5 MB at 10,000 cubes). Joining a character flattens it into a new
 * string; the slice then points into that copy only. (Internalizing it as a property key does the same at ~10× the cost.)
 */
function ownString(text: string): string {
  return ` ${text}`.slice(1);
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function normalizePorts(ports: DesiredPort[], path: Path, sshPort: number, issues: IssueList): DesiredPortSpec[] {
  const seen = new Map<number, number>();
  return ports.map((port, index) => {
    const first = seenBefore(seen, port.cubePort, index);
    if (first !== undefined) issues.add([...path, index, "cubePort"], `duplicate cubePort ${port.cubePort} (also ports[${first}])`);
    if (port.cubePort === sshPort)
      issues.add(
        [...path, index, "cubePort"],
        `cubePort ${port.cubePort} is the cube's SSH port; the SSH mapping is managed by sshPort, not ports`,
      );
    const spec: DesiredPortSpec = { cubePort: port.cubePort, udp: port.udp ?? true, allow: (port.allow ?? []).map(ownString) };
    if (port.label !== undefined) spec.label = ownString(port.label);
    return spec;
  });
}

/** What the duplicate checks read of a cube: callers may pass a partly invalid document. */
export interface IdentityFields {
  name: string;
  id?: string | undefined;
  domains?: readonly { hostname: string }[] | undefined;
  /** A group: its hostnames are its members' (`{i}` and `{name}` expanded), compared one by one. */
  replicas?: number | undefined;
}

/** Duplicate cube names (without distinct ids), cube ids and hostnames, with their paths. */
export function duplicateIssues(cubes: readonly IdentityFields[]): { path: Path; message: string }[] {
  const issues = new IssueList();
  checkDuplicateCubes(cubes, issues);
  checkDuplicateHostnames(cubes, issues);
  return issues.issues;
}

function checkDuplicateCubes(cubes: readonly IdentityFields[], issues: IssueList): void {
  const byName = new Map<string, number[]>();
  cubes.forEach((cube, index) => byName.set(cube.name, [...(byName.get(cube.name) ?? []), index]));
  for (const [name, indexes] of byName) {
    if (indexes.length < 2) continue;
    const ids = indexes.map((i) => cubes[i]?.id);
    const distinct = ids.every((id) => id !== undefined) && new Set(ids).size === ids.length;
    if (distinct) continue;
    for (const index of indexes.slice(1)) {
      issues.add(
        ["cubes", index, "name"],
        `duplicate cube name "${name}" (also cubes[${indexes[0]}]); give each an id: to pin distinct live cubes`,
      );
    }
  }
  const byId = new Map<string, number>();
  cubes.forEach((cube, index) => {
    const first = cube.id === undefined ? undefined : seenBefore(byId, cube.id, index);
    if (first !== undefined) issues.add(["cubes", index, "id"], `duplicate cube id "${cube.id}" (also cubes[${first}])`);
  });
}

function checkDuplicateHostnames(cubes: readonly IdentityFields[], issues: IssueList): void {
  const seen = new Map<string, string>();
  cubes.forEach((cube, cubeIndex) => {
    (cube.domains ?? []).forEach((domain, domainIndex) => {
      const hostnames =
        typeof cube.replicas === "number"
          ? Array.from({ length: cube.replicas }, (_, i) => memberHostname(domain.hostname, cube.name, i + 1))
          : [domain.hostname];
      for (const hostname of new Set(hostnames)) {
        const first = seenBefore(seen, hostname, `cubes[${cubeIndex}].domains[${domainIndex}]`);
        if (first !== undefined) {
          issues.add(
            ["cubes", cubeIndex, "domains", domainIndex, "hostname"],
            `duplicate hostname ${hostname} (also ${first}); a hostname can be attached to one cube only`,
          );
          break;
        }
      }
    });
  });
}

/** Where `key` was seen first, or undefined when it is new (and now seen at `at`). */
function seenBefore<K, V>(seen: Map<K, V>, key: K, at: V): V | undefined {
  const first = seen.get(key);
  if (first === undefined) seen.set(key, at);
  return first;
}
