/**
 * Per-resource overhead of the Pulumi dynamic provider beyond the HTTP calls themselves.
 *
 *   npx tsx bench/provider-overhead.ts [resources=20] [rounds=5]
 *
 * For each cube it times what a `pulumi up` with no changes (plus a refresh) costs per resource,
 * Check + Diff + Read, three ways against one local emulator:
 *   plugin     — through @pulumi/pulumi's dynamic-provider plugin over gRPC (as the engine drives it)
 *   in-process — the same runtime functions called directly (same zod check, engine plan, HTTP)
 *   http only  — just the two GETs Read sends (getCube + listTcpMappings)
 * overhead = plugin − in-process (gRPC, protobuf Struct conversion, plugin dispatch).
 * Needs the built package (npm run build).
 */
import { createClient } from "../client/index.js";
import { startEmulator } from "../emulator/index.js";
import { serializeProvider, startPlugin } from "../test/provider/harness.js";

type Props = Record<string, unknown>;

const RESOURCES = Number(process.argv[2] ?? 20);
const ROUNDS = Number(process.argv[3] ?? 5);
const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKVRAxf3HT5xvW3Ho3XgIF+rZzBpbMCYiZRxbZHcl7wM bench@cubeform";

const inputsOf = (name: string): Props => ({
  name,
  image: "ubuntu-24.04",
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
  sshPublicKey: SSH_KEY,
});

function stats(samples: number[]): { mean: number; p50: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: samples.reduce((a, b) => a + b, 0) / samples.length, p50: at(0.5), p95: at(0.95) };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

async function timeEach(ids: string[], work: (id: string, index: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) {
      const started = performance.now();
      await work(id, index);
      samples.push(performance.now() - started);
    }
  }
  return samples;
}

async function main(): Promise<void> {
  const emulator = await startEmulator({ clockSpeed: 1000, rateLimit: { limit: 10_000, windowMs: 1000 } });
  const config = {
    "cubeform:apiKey": emulator.apiKey,
    "cubeform:apiUrl": emulator.url,
    "cubeform:rateLimit": "10000/1",
    "cubeform:pollInterval": "0.01",
  };
  const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, rateLimit: { limit: 10_000, windowMs: 1000 } });
  const plugin = await startPlugin();
  try {
    const { cubeProvider } = await import("cubeform/provider");
    const runtime = await import("cubeform/provider-runtime");
    const provider = await serializeProvider(cubeProvider);
    await plugin.configure(config);
    await runtime.configure({
      config: {
        get: (key: string) => (config as Record<string, string>)[key],
        require: (key: string) => (config as Record<string, string>)[key]!,
      },
    });

    const urnOf = (name: string) => plugin.urnOf(name, "pulumi-nodejs:dynamic/cubeform:Cube");
    const names = Array.from({ length: RESOURCES }, (_, i) => `bench-${i}`);
    const coldStart = performance.now();
    const created = await Promise.all(names.map((name) => plugin.create(urnOf(name), { ...inputsOf(name), __provider: provider })));
    const createAllMs = performance.now() - coldStart;
    const ids = created.map((c) => c.id);
    const outs = created.map((c) => c.outs);

    const viaPlugin = await timeEach(ids, async (id, i) => {
      const name = names[i]!;
      const news = (await plugin.check(urnOf(name), outs[i], { ...inputsOf(name), __provider: provider })).inputs;
      await plugin.diff(urnOf(name), id, outs[i]!, news, news);
      await plugin.refresh(urnOf(name), id, outs[i]!, news);
    });
    const inProcess = await timeEach(ids, async (id, i) => {
      const name = names[i]!;
      await runtime.cubeCheck(outs[i]!, inputsOf(name));
      await runtime.cubeDiff(id, outs[i]!, inputsOf(name));
      await runtime.cubeRead(id, outs[i]);
    });
    const httpOnly = await timeEach(ids, (id) => Promise.all([client.getCube(id), client.listTcpMappings(id)]));

    const plugged = stats(viaPlugin);
    const direct = stats(inProcess);
    const http = stats(httpOnly);
    console.log(`provider overhead: ${RESOURCES} cubes x ${ROUNDS} rounds of Check+Diff+Read (Node ${process.version})`);
    console.log(`  plugin start-up:          ${ms(plugin.startupMs)}`);
    console.log(`  ${RESOURCES} parallel creates:      ${ms(createAllMs)} (incl. first import of the runtime, waits for running)`);
    console.log(`  plugin (gRPC)   per res.: mean ${ms(plugged.mean)}  p50 ${ms(plugged.p50)}  p95 ${ms(plugged.p95)}`);
    console.log(`  in-process      per res.: mean ${ms(direct.mean)}  p50 ${ms(direct.p50)}  p95 ${ms(direct.p95)}`);
    console.log(`  HTTP only (2 GETs):       mean ${ms(http.mean)}  p50 ${ms(http.p50)}  p95 ${ms(http.p95)}`);
    console.log(
      `  => overhead of the plugin beyond HTTP: ${ms(plugged.mean - http.mean)} per resource (${ms(plugged.mean - direct.mean)} of it gRPC + Struct + dispatch)`,
    );
  } finally {
    await plugin.close();
    await client.close();
    await emulator.close();
  }
}

await main();
