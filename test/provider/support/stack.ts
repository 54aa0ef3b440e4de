/**
 * A "stack" for provider tests: the emulator on loopback, ONE dynamic-provider plugin process
 * configured against it, and the `__provider` texts the SDK's own serializer makes from the
 * BUILT provider (dist). Helpers replay the engine's call sequences (Check → Create, Check →
 * Diff → Update, ...).
 */
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
    async close() {
      await plugin.close();
      await emulator.close();
    },
  };
}
