/** An emulator and a client pointed at it, closed after each test. */
import { afterEach } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../../emulator/index.js";
import { createClient, type ClientOptions } from "../../../client/index.js";

export interface EmulatorHarness {
  emulator: RunningEmulator;
  client: ReturnType<typeof createClient>;
}

export function useEmulator(): (emulatorOptions?: EmulatorOptions, clientOptions?: Partial<ClientOptions>) => Promise<EmulatorHarness> {
  const open: EmulatorHarness[] = [];
  afterEach(async () => {
    for (const h of open.splice(0)) {
      await h.client.close();
      await h.emulator.close();
    }
  });
  return async (emulatorOptions = {}, clientOptions = {}) => {
    const emulator = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 10, windowMs: 1000 }, ...emulatorOptions });
    const client = createClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      spaceId: emulator.spaceId,
      rateLimit: emulatorOptions.rateLimit ?? { limit: 10, windowMs: 1000 },
      ...clientOptions,
    });
    const harness = { emulator, client };
    open.push(harness);
    return harness;
  };
}

export function cubeBody(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    image: "ubuntu-24.04",
    resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
    sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExample user@host",
    ...extra,
  };
}

/** Poll (no fixed sleeps as synchronisation) until the cube reaches a state. */
export async function waitForState(
  client: ReturnType<typeof createClient>,
  cubeId: string,
  state: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cube = await client.getCube(cubeId);
    if (cube.state === state) return;
    if (Date.now() > deadline) throw new Error(`cube ${cubeId} is ${cube.state}, not ${state}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
