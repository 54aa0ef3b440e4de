/**
 * examples/pulumi under `pulumi.runtime.setMocks`: the built provider serializes and the program
 * registers the resources it should, with no API key anywhere in its inputs. The program runs
 * in its own node process (tsx, as the example's Pulumi.yaml does) so vitest never transforms
 * the provider.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./harness.js";

const run = promisify(execFile);
const API_KEY = "kro_mocks_canary_key_0123456789";
/** Pulumi's marker of a secret value in serialized inputs. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

async function runExample(): Promise<{ registered: Registered[]; stderr: string }> {
  const config = {
    "cubeform-example:sshPublicKey": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG0 me@host",
    "cubeform-example:basicAuthPassword": "s3cret-password",
    "cubeform:apiKey": API_KEY,
  };
  const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "test/provider/support/mocks-runner.ts", "examples/pulumi/index.ts"], {
    cwd: REPO_ROOT,
    env: { ...process.env, PULUMI_NODEJS_PROJECT: "cubeform-example", PULUMI_CONFIG: JSON.stringify(config) },
    timeout: 30_000,
  });
  return { registered: (JSON.parse(stdout) as { registered: Registered[] }).registered, stderr };
}

describe("examples/pulumi under mocks", () => {
  it("registers a protected cube, a domain and a TCP mapping with serialized providers and no API key", async () => {
    const { registered, stderr } = await runExample();
    expect(registered.map((r) => [r.type, r.name]).sort()).toEqual([
      ["pulumi-nodejs:dynamic/cubeform:Cube", "web"],
      ["pulumi-nodejs:dynamic/cubeform:Domain", "app"],
      ["pulumi-nodejs:dynamic/cubeform:TcpMapping", "postgres"],
    ]);
    const byName = Object.fromEntries(registered.map((r) => [r.name, r.inputs]));
    expect(byName.web).toMatchObject({ name: "web", image: "ubuntu-24.04", terminationProtection: true, resources: { vcpu: 2, ramGb: 4, diskGb: 40 } });
    expect(byName.app).toMatchObject({ cubeId: "web-id", hostname: "app.example.com", port: 8080 });
    expect(byName.app!.basicAuthPassword).toMatchObject({ [SECRET_SIG]: expect.any(String) });
    expect(byName.postgres).toMatchObject({ cubeId: "web-id", cubePort: 5432 });

    for (const { inputs } of registered) {
      const provider = inputs.__provider as string;
      expect(provider).toContain('import("cubeform/provider-runtime")');
      expect(provider).not.toContain(REPO_ROOT);
      expect(provider.length).toBeLessThan(5_000);
      expect(JSON.stringify(inputs)).not.toContain(API_KEY);
    }
    expect(stderr).not.toContain(API_KEY);
  });
});
