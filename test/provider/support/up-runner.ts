/**
 * `pulumi up` without the Pulumi CLI: runs a program under `pulumi.runtime.setMocks`, and every
 * resource it registers goes through the REAL dynamic-provider plugin (harness.ts) the way the
 * engine's step generator drives it:
 *   new resource          Check({}, news) → Create(checked)
 *   resource in the state Check(old inputs, news) → Diff(id, old outputs, old inputs, checked)
 *                         → nothing (same) / Update / Delete + Create (replace, delete first)
 *   `import` option       Read(id) alone (ImportStep), as the engine sends it
 * Resources of the state the program no longer registers are deleted. The state is a JSON file
 * kept between runs, like a stack's checkpoint.
 *
 *   node --import tsx up-runner.ts <program.ts>
 * env: UP_STATE (state file), UP_PROVIDER_CONFIG (JSON: the stack config the plugin receives),
 * PULUMI_CONFIG (the program's config), UP_RUNS (how many `pulumi up` in a row; default 1).
 * Prints one JSON line per run: { steps, outputs, error, pluginStderr }.
 */
import pulumi from "@pulumi/pulumi";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { DIFF_NONE, startPlugin } from "../harness.js";

type Props = Record<string, unknown>;
interface StateEntry {
  type: string;
  id: string;
  inputs: Props;
  outs: Props;
  /** The inputs the program marked secret (and outputs of the same name): sealed in the checkpoint. */
  secrets?: string[];
}
export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "import";
export interface UpStep {
  urn: string;
  op: StepOp;
  replaces?: string[];
}

/*
 * Secrets as the engine keeps them: the plugin does not accept secrets, so it gets plain values;
 * the checkpoint holds each secret input, and each output of the same name, as a secret value
 * (`{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext}`). The
 * engine encrypts with the stack's secrets provider; base64 stands in for that here.
 */
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const isSecret = (value: unknown): value is { [SIG]: string; value?: unknown; ciphertext?: string } =>
  typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG] === SECRET;
const encrypt = (value: unknown) => ({ [SIG]: SECRET, ciphertext: Buffer.from(JSON.stringify(value ?? null)).toString("base64") });
const decrypt = (value: { ciphertext?: string; value?: unknown }): unknown =>
  "ciphertext" in value ? JSON.parse(Buffer.from(value.ciphertext ?? "", "base64").toString()) : value.value;

/** The program's inputs as the plugin gets them (plain), and the names of the secret ones. */
function unwrapSecrets(news: Props): { plain: Props; secrets: string[] } {
  const secrets = Object.keys(news).filter((key) => isSecret(news[key]));
  return {
    plain: Object.fromEntries(Object.entries(news).map(([key, value]) => [key, isSecret(value) ? decrypt(value) : value])),
    secrets,
  };
}
const sealProps = (props: Props, secrets: string[]): Props =>
  Object.fromEntries(Object.entries(props).map(([key, value]) => [key, secrets.includes(key) ? encrypt(value) : value]));
const openProps = (props: Props): Props =>
  Object.fromEntries(Object.entries(props).map(([key, value]) => [key, isSecret(value) ? decrypt(value) : value]));
const sealState = (entries: Record<string, StateEntry>) =>
  Object.fromEntries(
    Object.entries(entries).map(([urn, e]) => [
      urn,
      { ...e, inputs: sealProps(e.inputs, e.secrets ?? []), outs: sealProps(e.outs, e.secrets ?? []) },
    ]),
  );
const openState = (entries: Record<string, StateEntry>): Record<string, StateEntry> =>
  Object.fromEntries(Object.entries(entries).map(([urn, e]) => [urn, { ...e, inputs: openProps(e.inputs), outs: openProps(e.outs) }]));

const statePath = process.env.UP_STATE!;
const state: Record<string, StateEntry> = existsSync(statePath)
  ? openState(JSON.parse(readFileSync(statePath, "utf8")) as Record<string, StateEntry>)
  : {};
const project = process.env.PULUMI_NODEJS_PROJECT ?? "project";
const stackName = "dev";
const plugin = await startPlugin({ project, stack: stackName });
await plugin.configure(JSON.parse(process.env.UP_PROVIDER_CONFIG ?? "{}") as Props);

const steps: UpStep[] = [];
const seen = new Set<string>();
const withoutProvider = ({ __provider: _provider, ...rest }: Props): Props => rest;

async function up(type: string, name: string, programInputs: Props, importId: string | undefined): Promise<{ id: string; state: Props }> {
  const { plain: news, secrets } = unwrapSecrets(programInputs);
  const urn = `urn:pulumi:${stackName}::${project}::${type}::${name}`;
  seen.add(urn);
  const old = state[urn];
  if (importId && !old) {
    steps.push({ urn, op: "import" });
    const read = await plugin.importRead(urn, importId);
    state[urn] = { type, id: read.id, inputs: read.inputs ?? {}, outs: read.outs };
    return { id: read.id, state: withoutProvider(read.outs) };
  }
  const checked = await plugin.check(urn, old?.inputs ?? {}, news);
  if (checked.failures.length > 0) throw new Error(`${name}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
  const inputs = checked.inputs;
  if (!old) {
    const created = await plugin.create(urn, inputs);
    steps.push({ urn, op: "create" });
    state[urn] = { type, id: created.id, inputs, outs: created.outs, secrets };
    return { id: created.id, state: withoutProvider(created.outs) };
  }
  const diff = await plugin.diff(urn, old.id, old.outs, old.inputs, inputs);
  if (diff.replaces.length > 0) {
    await plugin.delete(urn, old.id, old.outs, old.inputs);
    const created = await plugin.create(urn, inputs);
    steps.push({ urn, op: "replace", replaces: diff.replaces });
    state[urn] = { type, id: created.id, inputs, outs: created.outs, secrets };
  } else if (diff.changes !== DIFF_NONE) {
    const updated = await plugin.update(urn, old.id, old.outs, old.inputs, inputs);
    steps.push({ urn, op: "update" });
    state[urn] = { ...old, inputs, outs: updated.outs, secrets };
  } else {
    steps.push({ urn, op: "same" });
    state[urn] = { ...old, inputs, secrets };
  }
  return { id: state[urn]!.id, state: withoutProvider(state[urn]!.outs) };
}

const mocks: pulumi.runtime.Mocks = {
  async newResource(args) {
    // Component resources (a Fleet) have no provider: the engine only records them.
    if (args.custom === false) return { id: undefined, state: {} };
    return up(args.type, args.name, args.inputs as Props, args.id || undefined);
  },
  call(args) {
    return args.inputs;
  },
};

/** One `pulumi up`: the program evaluated afresh, then what it no longer declares deleted. */
async function runOnce(run: number): Promise<{ steps: UpStep[]; outputs: Props; error: string | null }> {
  steps.length = 0;
  seen.clear();
  pulumi.runtime.setMocks(mocks, project, stackName, false);
  const outputs: Props = {};
  try {
    const program = (await import(`${pathToFileURL(process.argv[2]!).href}?run=${run}`)) as Props;
    for (const [name, value] of Object.entries(program)) {
      outputs[name] = pulumi.Output.isInstance(value) ? await new Promise((resolve) => value.apply(resolve)) : value;
    }
    await pulumi.runtime.disconnect();
    for (const [urn, entry] of Object.entries(state)) {
      if (seen.has(urn)) continue;
      await plugin.delete(urn, entry.id, entry.outs, entry.inputs);
      steps.push({ urn, op: "delete" });
      delete state[urn];
    }
    return { steps: [...steps], outputs, error: null };
  } catch (error) {
    return { steps: [...steps], outputs, error: String((error as Error).message ?? error) };
  } finally {
    writeFileSync(statePath, JSON.stringify(sealState(state), null, 2));
  }
}

const runs = Number(process.env.UP_RUNS ?? "1");
const results = [];
for (let run = 1; run <= runs; run++) results.push(await runOnce(run));
await plugin.close();
for (const result of results) process.stdout.write(`${JSON.stringify({ ...result, pluginStderr: plugin.stderr() })}\n`);
