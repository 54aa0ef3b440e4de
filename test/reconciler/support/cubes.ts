import type { CreateCubeRequest, Cube } from "../../../schema/index.js";
import { waitFor } from "../../support/wait.js";
import { SSH_KEY } from "./cli.js";
import type { CliFixture } from "./fixtures.js";

/** Creates a cube straight through the API, as another tool would (no file declares it); `extra` adds to its body. */
export function createCubeOutsideTheFile(fx: CliFixture, name: string, extra: Partial<CreateCubeRequest> = {}): Promise<Cube> {
  const body = { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY, ...extra };
  return fx.api.createCube(body, { idempotencyKey: `create-${name}` });
}

/** createCubeOutsideTheFile, then waits until the cube runs. */
export async function runningCube(fx: CliFixture, name: string, extra: Partial<CreateCubeRequest> = {}): Promise<Cube> {
  const created = await createCubeOutsideTheFile(fx, name, extra);
  await waitFor(async () => ((await fx.api.getCube(created.id)).state === "running" ? true : undefined), { timeoutMs: 15_000 });
  return created;
}
