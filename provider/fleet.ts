/**
 * `new Fleet("prod", { file: "cubeform.yaml" })`: the CLI's desired-state file as a Pulumi component, loaded as `cubeform` loads it; each cube, domain, port
 * and webhook is a child named for it, so a fleet moves between `cubeform apply` and `pulumi up` unchanged. Pulumi has its own `prune` (it deletes what the
 * program no longer declares) and `lifecycle.allowReplace` (`pulumi preview`); a pinned cube `id` becomes the Cube's adoptId.
 */
import pulumi from "@pulumi/pulumi";
import type { DesiredCubeSpec, DesiredDomainSpec, DesiredPortSpec, DesiredWebhookSpec } from "../engine/types.js";
import { PRIVATE_FILE, writeFileAtomicSync } from "../system/files.js";
import { formatProblem, inWords, loadFleetSync, LoadError, type InputNames, type LoadedFiles } from "../desired/index.js";
import { Cube, Domain, TcpMapping, Webhook } from "./resources.js";
import { declaredOnly } from "./values.js";

export interface FleetArgs {
  /**
   * The desired-state file (cubeform.yaml), relative to the program's directory; or several, or directories of .yaml files:
   * each file keeps its own defaults, and a cube is declared in one file only (as `cubeform -f a.yaml -f b.yaml`).
   */
  file: string | readonly string[];
}

/** The Fleet's names for what a load is given, in the messages of its errors. */
const FLEET_NAMES: InputNames = { file: "the Fleet's file argument" };

/** Cube fields Pulumi's ignoreChanges can name (domains and ports are children, not fields). */
const IGNORABLE_INPUTS = new Set(["image", "region", "resources", "sshPublicKey", "userData", "terminationProtection", "power", "sshPort"]);

function load(file: FleetArgs["file"]): LoadedFiles {
  try {
    return loadFleetSync({ files: typeof file === "string" ? [file] : file, cwd: process.cwd(), env: process.env });
  } catch (error) {
    inWords(error, FLEET_NAMES);
    if (error instanceof LoadError) throw new Error(`${error.message}\n${error.problems.map((p) => formatProblem(p)).join("\n")}`);
    throw error;
  }
}

export class Fleet extends pulumi.ComponentResource {
  /** By cube name. */
  readonly cubes: Record<string, Cube> = {};
  /** By "<cube>/<hostname>". */
  readonly domains: Record<string, Domain> = {};
  /** By "<cube>/<cubePort>". */
  readonly tcpMappings: Record<string, TcpMapping> = {};
  /** By url. */
  readonly webhooks: Record<string, Webhook> = {};

  constructor(name: string, args: FleetArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cubeform:index:Fleet", name, {}, opts);
    const { desired } = load(args.file);
    for (const spec of desired.cubes) this.addCube(name, spec);
    for (const spec of desired.webhooks ?? []) this.addWebhook(name, spec);
    this.registerOutputs({ cubeIds: Object.fromEntries(Object.entries(this.cubes).map(([cube, resource]) => [cube, resource.cubeId])) });
  }

  private addCube(fleet: string, spec: DesiredCubeSpec): void {
    const ignoreChanges = spec.lifecycle.ignoreChanges.filter((field) => IGNORABLE_INPUTS.has(field));
    const cube = new Cube(
      `${fleet}-${spec.name}`,
      {
        name: spec.name,
        image: spec.image,
        resources: spec.resources,
        sshPublicKey: spec.sshPublicKey,
        ...declaredOnly({
          region: spec.region,
          userData: spec.userData,
          terminationProtection: spec.terminationProtection,
          power: spec.power,
          sshPort: spec.sshPort,
          adoptId: spec.id,
        }),
      },
      { parent: this, ...(ignoreChanges.length > 0 ? { ignoreChanges } : {}) },
    );
    this.cubes[spec.name] = cube;
    for (const domain of spec.domains ?? []) this.addDomain(fleet, spec.name, cube, domain);
    for (const port of spec.ports ?? []) this.addPort(fleet, spec.name, cube, port);
  }

  private addDomain(fleet: string, cubeName: string, cube: Cube, spec: DesiredDomainSpec): void {
    const password = spec.basicAuthPassword === undefined ? undefined : process.env[spec.basicAuthPassword.env];
    if (spec.basicAuthPassword !== undefined && !password) {
      throw new Error(`environment variable ${spec.basicAuthPassword.env} is not set; it holds basicAuthPassword of ${spec.hostname}`);
    }
    this.domains[`${cubeName}/${spec.hostname}`] = new Domain(
      `${fleet}-${cubeName}-${spec.hostname}`,
      {
        cubeId: cube.cubeId,
        hostname: spec.hostname,
        port: spec.port,
        ...spec.settings,
        ...(password ? { basicAuthPassword: pulumi.secret(password) } : {}),
      },
      { parent: this },
    );
  }

  private addPort(fleet: string, cubeName: string, cube: Cube, spec: DesiredPortSpec): void {
    this.tcpMappings[`${cubeName}/${spec.cubePort}`] = new TcpMapping(
      `${fleet}-${cubeName}-port-${spec.cubePort}`,
      { cubeId: cube.cubeId, cubePort: spec.cubePort, udp: spec.udp, allow: spec.allow, ...declaredOnly({ label: spec.label }) },
      { parent: this },
    );
  }

  /** As with the CLI, the signing secret goes to the entry's secretFile (0600), and stays secret in state. */
  private addWebhook(fleet: string, spec: DesiredWebhookSpec): void {
    const webhook = new Webhook(
      `${fleet}-webhook-${spec.url}`,
      { url: spec.url, events: spec.events, ...declaredOnly({ description: spec.description }) },
      { parent: this },
    );
    this.webhooks[spec.url] = webhook;
    webhook.secret.apply((secret) => {
      if (typeof secret !== "string" || secret === "" || pulumi.runtime.isDryRun()) return;
      writeFileAtomicSync(spec.secretPath, `${secret}\n`, { mode: PRIVATE_FILE });
    });
  }
}
