/**
 * Drive @pulumi/pulumi's dynamic-provider plugin over gRPC the way the Pulumi engine does,
 * without the Pulumi CLI (see shared/notes/pulumi-dynamic-provider.md).
 *
 * `serializeProvider` produces `__provider` exactly as `dynamic/index.js` does; `startPlugin`
 * spawns `cmd/dynamic-provider` in a directory that resolves `cubeform` (the repo itself: the
 * package self-references by name) and exposes the RPCs the engine sends, with exactly the
 * fields the engine fills for each step (pulumi/pulumi pkg/resource/deploy/step.go):
 *   preview/up  Check(olds = old inputs, news) → Diff(id, olds = old outputs, oldInputs, news)
 *               → Create(properties) / Update(id, olds, oldInputs, news) / Delete(id, outputs, oldInputs)
 *   refresh     Read(id, properties = the state, inputs = the old inputs)
 *   import      Read(id) and nothing else: ImportStep.Apply sends no state and no inputs, so the
 *               plugin finds no `__provider` and fails (pulumi/pulumi#16175).
 *
 * Every module is loaded through @pulumi/pulumi's own resolution, so there is ONE copy of
 * @grpc/grpc-js and google-protobuf (the generated stubs check `instanceof`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

const rootRequire = createRequire(import.meta.url);
const pulumiRequire = createRequire(rootRequire.resolve("@pulumi/pulumi"));
const pulumiDir = dirname(rootRequire.resolve("@pulumi/pulumi/package.json"));

type Props = Record<string, unknown>;

interface ProtoStruct {
  toJavaScript(): Props;
}
interface StructClass {
  fromJavaScript(value: Props): ProtoStruct;
}
/** The generated request classes: setters by field name. */
type ProtoRequest = Record<string, (value: unknown) => void>;
type ProtoResponse = Record<string, () => unknown>;
type RpcClient = Record<string, (req: ProtoRequest, cb: (err: Error | null, resp: ProtoResponse) => void) => void> & { close(): void };

const grpc = pulumiRequire("@grpc/grpc-js") as { credentials: { createInsecure(): unknown } };
const { Struct } = pulumiRequire("google-protobuf/google/protobuf/struct_pb") as { Struct: StructClass };
const provproto = pulumiRequire("@pulumi/pulumi/proto/provider_pb") as Record<string, new () => ProtoRequest>;
const provrpc = pulumiRequire("@pulumi/pulumi/proto/provider_grpc_pb") as {
  ResourceProviderClient: new (addr: string, creds: unknown) => RpcClient;
};
const statusproto = pulumiRequire("@pulumi/pulumi/proto/status_pb") as {
  Status: { deserializeBinary(bytes: Uint8Array): { getDetailsList(): { getValue_asU8(): Uint8Array }[] } };
};
const InitFailed = (pulumiRequire("@pulumi/pulumi/proto/provider_pb") as Record<string, unknown>).ErrorResourceInitFailed as {
  deserializeBinary(bytes: Uint8Array): { getId(): string; getProperties(): ProtoStruct | undefined; getReasonsList(): string[] };
};
const { serializeFunction } = pulumiRequire("@pulumi/pulumi/runtime/closure/serializeClosure") as {
  serializeFunction(fn: () => unknown, options: { allowSecrets: boolean }): Promise<{ text: string }>;
};

/** Exactly what dynamic/index.js serializeFunctionMaybeSecret() does to produce `__provider`. */
export async function serializeProvider(provider: object): Promise<string> {
  const serialized = await serializeFunction(() => provider, { allowSecrets: true });
  return serialized.text;
}

export interface CheckResult {
  inputs: Props;
  failures: { property: string; reason: string }[];
}
export interface DiffResult {
  /** 0 unknown, 1 none, 2 some (DiffResponse.DiffChanges). */
  changes: number;
  replaces: string[];
  deleteBeforeReplace: boolean;
}
export interface ReadResult {
  id: string;
  outs: Props;
  inputs: Props | undefined;
}

/** What a failed Create reports as ErrorResourceInitFailed (the resource exists; Pulumi records it). */
export function initFailureOf(error: unknown): { id: string; properties: Props; reasons: string[] } | undefined {
  const metadata = (error as { metadata?: { get(key: string): unknown[] } }).metadata;
  const bytes = metadata?.get("grpc-status-details-bin")[0];
  if (!(bytes instanceof Uint8Array)) return undefined;
  const any = statusproto.Status.deserializeBinary(bytes).getDetailsList()[0];
  if (!any) return undefined;
  const detail = InitFailed.deserializeBinary(any.getValue_asU8());
  return { id: detail.getId(), properties: js(detail.getProperties()) ?? {}, reasons: detail.getReasonsList() };
}

export const DIFF_NONE = 1;
export const DIFF_SOME = 2;

export interface Plugin {
  child: ChildProcess;
  startupMs: number;
  stderr(): string;
  urnOf(name: string, type?: string): string;
  configure(config: Props): Promise<void>;
  check(urn: string, olds: Props | undefined, news: Props): Promise<CheckResult>;
  diff(urn: string, id: string, oldOutputs: Props, oldInputs: Props, news: Props): Promise<DiffResult>;
  create(urn: string, props: Props): Promise<{ id: string; outs: Props }>;
  /** `pulumi refresh`: the resource's state (with `__provider`) and its inputs. */
  refresh(urn: string, id: string, state: Props, inputs: Props): Promise<ReadResult>;
  /** The `import` resource option / `pulumi import`: the id alone (the engine sends nothing else). */
  importRead(urn: string, id: string): Promise<ReadResult>;
  update(urn: string, id: string, oldOutputs: Props, oldInputs: Props, news: Props): Promise<{ outs: Props }>;
  delete(urn: string, id: string, oldOutputs: Props, oldInputs: Props): Promise<void>;
  close(): Promise<void>;
}

export interface PluginOptions {
  project?: string;
  stack?: string;
  /** Working directory of the plugin: must resolve `cubeform` (default: the repo). */
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** The engine's address the plugin is started with (default: none listening). */
  engineAddress?: string;
}

/** A stand-in for the engine's Engine service, as the plugin reaches it at its address: it keeps the Log calls it receives. */
export async function startEngineLog(): Promise<{
  address: string;
  logs: { severity: number; message: string; urn: string }[];
  close(): Promise<void>;
}> {
  const grpc = pulumiRequire("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const services = pulumiRequire("@pulumi/pulumi/proto/engine_grpc_pb.js") as { EngineService: import("@grpc/grpc-js").ServiceDefinition };
  const empty = pulumiRequire("google-protobuf/google/protobuf/empty_pb.js") as { Empty: new () => unknown };
  const logs: { severity: number; message: string; urn: string }[] = [];
  const server = new grpc.Server();
  const log = (
    call: { request: { getSeverity(): number; getMessage(): string; getUrn(): string } },
    callback: (err: null, reply: unknown) => void,
  ) => {
    logs.push({ severity: call.request.getSeverity(), message: call.request.getMessage(), urn: call.request.getUrn() });
    callback(null, new empty.Empty());
  };
  server.addService(services.EngineService, { log } as never);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, logs, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

const js = (struct: unknown): Props | undefined => (struct ? (struct as ProtoStruct).toJavaScript() : undefined);
const readResult = (resp: ProtoResponse): ReadResult => ({
  id: resp.getId!() as string,
  outs: js(resp.getProperties!()) ?? {},
  inputs: js(resp.getInputs!()),
});
const struct = (value: Props) => Struct.fromJavaScript(value);

function request(name: string, fields: Record<string, unknown>): ProtoRequest {
  const Class = provproto[name];
  if (!Class) throw new Error(`no proto class ${name}`);
  const req = new Class();
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const setter = req[`set${field}`];
    if (!setter) throw new Error(`${name} has no set${field}`);
    setter.call(req, value);
  }
  return req;
}

/** The plugin prints its port on the first line of stdout. */
function readPort(child: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout!.on("data", (data: Buffer) => {
      buffer += data.toString();
      const newline = buffer.indexOf("\n");
      if (newline >= 0) resolve(Number(buffer.slice(0, newline).trim()));
    });
    child.once("exit", (code) => reject(new Error(`plugin exited (${code}) before printing its port: ${stderr()}`)));
  });
}

export async function startPlugin(options: PluginOptions = {}): Promise<Plugin> {
  const project = options.project ?? "proj";
  const stack = options.stack ?? "dev";
  const started = performance.now();
  const script = `${pulumiDir}/cmd/dynamic-provider`;
  // The engine runs `pulumi-resource-pulumi-nodejs <engineAddr>` in the program dir; the address is unused here.
  const child = spawn(process.execPath, [script, options.engineAddress ?? "127.0.0.1:1"], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env, PULUMI_NODEJS_PROJECT: project, PULUMI_PROJECT: project, PULUMI_CONFIG: "{}" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  let stderr = "";
  child.stderr!.on("data", (data: Buffer) => (stderr += data.toString()));
  const port = await readPort(child, () => stderr);
  const startupMs = performance.now() - started;
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const rpc = (method: string, req: ProtoRequest) =>
    new Promise<ProtoResponse>((resolve, reject) => client[method]!(req, (err, resp) => (err ? reject(err) : resolve(resp))));
  const urnOf = (name: string, type = "pulumi-nodejs:dynamic:Resource") => `urn:pulumi:${stack}::${project}::${type}::${name}`;
  const target = (urn: string) => ({ Urn: urn, Name: urn.split("::").pop(), Type: urn.split("::")[2] });
  /** A Diff or Update request: the resource's state and inputs as they were, and the new inputs. */
  const changeRequest = (name: string, urn: string, id: string, olds: Props, oldInputs: Props, news: Props) =>
    request(name, { ...target(urn), Id: id, Olds: struct(olds), OldInputs: struct(oldInputs), News: struct(news) });

  return {
    child,
    startupMs,
    stderr: () => stderr,
    urnOf,
    async configure(config) {
      // The engine sends the whole stack config keyed "project:key"; the plugin unwraps secrets.
      const req = request("ConfigureRequest", {
        Args: struct(config),
        Acceptsecrets: true,
        Acceptresources: true,
        SendsOldInputs: true,
        SendsOldInputsToDelete: true,
        Urn: `urn:pulumi:${stack}::${project}::pulumi:providers:pulumi-nodejs::default`,
        Name: "default",
        Type: "pulumi:providers:pulumi-nodejs",
        Id: "00000000-0000-0000-0000-000000000000",
      });
      await rpc("configure", req);
    },
    async check(urn, olds, news) {
      const req = request("CheckRequest", { ...target(urn), Olds: struct(olds ?? {}), News: struct(news), Randomseed: Buffer.alloc(32) });
      const resp = await rpc("check", req);
      const failures = (resp.getFailuresList!() as ProtoResponse[]).map((f) => ({
        property: f.getProperty!() as string,
        reason: f.getReason!() as string,
      }));
      return { inputs: js(resp.getInputs!()) ?? {}, failures };
    },
    async diff(urn, id, oldOutputs, oldInputs, news) {
      const resp = await rpc("diff", changeRequest("DiffRequest", urn, id, oldOutputs, oldInputs, news));
      return {
        changes: resp.getChanges!() as number,
        replaces: resp.getReplacesList!() as string[],
        deleteBeforeReplace: resp.getDeletebeforereplace!() as boolean,
      };
    },
    async create(urn, props) {
      const resp = await rpc("create", request("CreateRequest", { ...target(urn), Properties: struct(props), Preview: false }));
      return { id: resp.getId!() as string, outs: js(resp.getProperties!()) ?? {} };
    },
    async refresh(urn, id, state, inputs) {
      return readResult(
        await rpc("read", request("ReadRequest", { ...target(urn), Id: id, Properties: struct(state), Inputs: struct(inputs) })),
      );
    },
    async importRead(urn, id) {
      return readResult(await rpc("read", request("ReadRequest", { ...target(urn), Id: id })));
    },
    async update(urn, id, oldOutputs, oldInputs, news) {
      const resp = await rpc("update", changeRequest("UpdateRequest", urn, id, oldOutputs, oldInputs, news));
      return { outs: js(resp.getProperties!()) ?? {} };
    },
    async delete(urn, id, oldOutputs, oldInputs) {
      await rpc(
        "delete",
        request("DeleteRequest", { ...target(urn), Id: id, Properties: struct(oldOutputs), OldInputs: struct(oldInputs) }),
      );
    },
    async close() {
      client.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM"); // the engine just kills the plugin process too
      await exited;
    },
  };
}
