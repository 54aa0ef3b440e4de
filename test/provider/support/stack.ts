/**
 * A "stack" for provider tests: the emulator on loopback, ONE dynamic-provider plugin process
 * configured against it, and the `__provider` texts the SDK's own serializer makes from the
 * BUILT provider (dist). Helpers replay the engine's call sequences (Check → Create, Check →
 * Diff → Update, ...).
 */
import { afterAll, beforeAll } from "vitest";
import { createClient } from "../../../client/index.js";
import { startEmulator, type RunningEmulator } from "../../../emulator/index.js";
import { serializeProvider, startPlugin, type DiffResult, type Plugin } from "../harness.js";

export type Kind = "Cube" | "Domain" | "TcpMapping" | "Webhook" | "CubeGroup";
type Props = Record<string, unknown>;

export interface Resource {
  kind: Kind;
  urn: string;
  id: string;
  /** Inputs as checked (with __provider), as the engine keeps them. */
  inputs: Props;
  outs: Props;
}

export interface StackOptions {
  /** The emulator's mutation limit (default: its own, 10 per 60 s). */
  emulatorRateLimit?: { limit: number; windowMs: number };
  /** cubeform:rateLimit, "N/SECONDS". */
  providerRateLimit?: string;
  /** The API as the plugin reaches it (default: the emulator), e.g. a rewriting proxy in front of it. */
  apiUrl?: (emulator: RunningEmulator) => Promise<string>;
  /** The plugin's environment, besides the test process's. */
  env?: Record<string, string>;
  /** The engine's address the plugin is started with (harness startEngineLog). */
  engineAddress?: string;
}

export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKVRAxf3HT5xvW3Ho3XgIF+rZzBpbMCYiZRxbZHcl7wM test@cubeform";

export function cubeInputs(name: string, extra: Props = {}): Props {
  return { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY, ...extra };
}

export interface Stack {
  emulator: RunningEmulator;
  plugin: Plugin;
  providers: Record<Kind, string>;
  urn(kind: Kind, name: string): string;
  withProvider(kind: Kind, inputs: Props): Props;
  /** Check then Create; throws on check failures. */
  create(kind: Kind, name: string, inputs: Props): Promise<Resource>;
  /** Check then Diff against the resource's state. */
  diff(resource: Resource, inputs: Props): Promise<DiffResult>;
  /** Check, Diff and (when the diff asks for an in-place change) Update; returns the new state. */
  update(resource: Resource, inputs: Props): Promise<{ diff: DiffResult; resource: Resource }>;
  /** Read as `pulumi refresh` does; undefined when the resource is gone. */
  refresh(resource: Resource): Promise<Resource | undefined>;
  destroy(resource: Resource): Promise<void>;
  /** Another plugin process against this emulator: its API key and URL, plus `config`. The caller closes it. */
  anotherPlugin(config: Props): Promise<Plugin>;
  close(): Promise<void>;
}

async function providerTexts(): Promise<Record<Kind, string>> {
  const { cubeProvider, domainProvider, tcpMappingProvider, webhookProvider, cubeGroupProvider } = await import("cubeform/provider");
  return {
    Cube: await serializeProvider(cubeProvider),
    Domain: await serializeProvider(domainProvider),
    TcpMapping: await serializeProvider(tcpMappingProvider),
    Webhook: await serializeProvider(webhookProvider),
    CubeGroup: await serializeProvider(cubeGroupProvider),
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const emulator = await startEmulator({ clockSpeed: 100, ...(options.emulatorRateLimit ? { rateLimit: options.emulatorRateLimit } : {}) });
  const plugin = await startPlugin({ env: options.env, ...(options.engineAddress ? { engineAddress: options.engineAddress } : {}) });
  const apiUrl = options.apiUrl ? await options.apiUrl(emulator) : emulator.url;
  const config: Props = {
    "cubeform:apiKey": emulator.apiKey,
    "cubeform:apiUrl": apiUrl,
    "cubeform:pollInterval": "0.02",
    "cubeform:waitTimeout": "20",
  };
  if (options.providerRateLimit) config["cubeform:rateLimit"] = options.providerRateLimit;
  await plugin.configure(config);
  const providers = await providerTexts();
  const urn = (kind: Kind, name: string) => plugin.urnOf(name, `pulumi-nodejs:dynamic/cubeform:${kind}`);
  const withProvider = (kind: Kind, inputs: Props) => ({ ...inputs, __provider: providers[kind] });

  async function checked(kind: Kind, urnText: string, olds: Props | undefined, inputs: Props): Promise<Props> {
    const result = await plugin.check(urnText, olds, withProvider(kind, inputs));
    if (result.failures.length > 0) throw new Error(`check failed: ${JSON.stringify(result.failures)}`);
    return result.inputs;
  }

  return {
    emulator,
    plugin,
    providers,
    urn,
    withProvider,
    async create(kind, name, inputs) {
      const resourceUrn = urn(kind, name);
      const news = await checked(kind, resourceUrn, undefined, inputs);
      const { id, outs } = await plugin.create(resourceUrn, news);
      return { kind, urn: resourceUrn, id, inputs: news, outs };
    },
    async diff(resource, inputs) {
      const news = await checked(resource.kind, resource.urn, resource.inputs, inputs);
      return plugin.diff(resource.urn, resource.id, resource.outs, resource.inputs, news);
    },
    async update(resource, inputs) {
      const news = await checked(resource.kind, resource.urn, resource.inputs, inputs);
      const diff = await plugin.diff(resource.urn, resource.id, resource.outs, resource.inputs, news);
      if (diff.replaces.length > 0) throw new Error(`update() called for a replacement: ${diff.replaces.join(", ")}`);
      if (diff.changes !== 2) return { diff, resource: { ...resource, inputs: news } };
      const { outs } = await plugin.update(resource.urn, resource.id, resource.outs, resource.inputs, news);
      return { diff, resource: { ...resource, inputs: news, outs } };
    },
    async refresh(resource) {
      const read = await plugin.refresh(resource.urn, resource.id, resource.outs, resource.inputs);
      if (!read.id) return undefined;
      return { ...resource, id: read.id, outs: read.outs, inputs: read.inputs ?? resource.inputs };
    },
    async destroy(resource) {
      await plugin.delete(resource.urn, resource.id, resource.outs, resource.inputs);
    },
    async anotherPlugin(config) {
      const another = await startPlugin();
      try {
        await another.configure({ "cubeform:apiKey": emulator.apiKey, "cubeform:apiUrl": emulator.url, ...config });
      } catch (error) {
        await another.close();
        throw error;
      }
      return another;
    },
    async close() {
      await plugin.close();
      await emulator.close();
    },
  };
}

/**
 * The stack a test file shares: started before its tests, closed after them. `keep` receives it
 * (the file assigns it to its `stack`); hooks the file registers later run before the close.
 */
export function stackForFile(keep: (stack: Stack) => unknown, options: StackOptions = {}): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(options);
    await keep(stack);
  });
  afterAll(async () => {
    await stack?.close();
  });
}

/** stackForFile with a client straight to its emulator (directClient), closed before the stack. */
export function stackAndClientForFile(keep: (file: { stack: Stack; api: DirectClient }) => void, options: StackOptions = {}): void {
  let api: DirectClient | undefined;
  stackForFile((stack) => keep({ stack, api: (api = directClient(stack)) }), options);
  afterAll(async () => {
    await api?.close();
  });
}

/** stackForFile with a Cube of that name created in the stack before the file's tests. */
export function stackWithCubeForFile(cubeName: string, keep: (file: { stack: Stack; cube: Resource }) => void): void {
  stackForFile(async (stack) => keep({ stack, cube: await stack.create("Cube", cubeName, cubeInputs(cubeName)) }));
}

export type DirectClient = ReturnType<typeof createClient>;

/** A client straight to the stack's emulator, as the dashboard or another tool would reach it (the caller closes it). */
export function directClient(stack: Stack, rateLimit = { limit: 1000, windowMs: 60_000 }): DirectClient {
  return createClient({ baseUrl: stack.emulator.url, apiKey: stack.emulator.apiKey, spaceId: stack.emulator.spaceId, rateLimit });
}
