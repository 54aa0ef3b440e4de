/**
 * examples/pulumi under `pulumi.runtime.setMocks`: the built provider serializes and the program
 * registers the resources it should, with no API key anywhere in its inputs. The program runs
 * in its own node process (tsx, as the example's Pulumi.yaml does) so vitest never transforms
 * the provider.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
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

const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG0 me@host";
const EXAMPLE = join(REPO_ROOT, "examples", "pulumi");

async function runExample(extraConfig: Record<string, string> = {}): Promise<{ registered: Registered[]; stderr: string }> {
  const config = {
    "cubeform-example:sshPublicKey": SSH_KEY,
    "cubeform-example:basicAuthPassword": "s3cret-password",
    "cubeform:apiKey": API_KEY,
    ...extraConfig,
  };
  // Pulumi runs a program in its project directory, so workers.yaml is found next to index.ts.
  const { stdout, stderr } = await run(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "test/provider/support/mocks-runner.ts"), join(EXAMPLE, "index.ts")],
    {
      cwd: EXAMPLE,
      env: {
        ...process.env,
        PULUMI_NODEJS_PROJECT: "cubeform-example",
        PULUMI_CONFIG: JSON.stringify(config),
        CUBE_SSH_PUBLIC_KEY: SSH_KEY,
      },
      timeout: 30_000,
    },
  );
  return { registered: (JSON.parse(stdout) as { registered: Registered[] }).registered, stderr };
}

describe("examples/pulumi under mocks", () => {
  it("registers a protected cube, a domain, a TCP mapping and the workers.yaml Fleet, with serialized providers and no API key", async () => {
    const { registered, stderr } = await runExample();
    expect(registered.map((r) => [r.type, r.name]).sort()).toEqual([
      ["cubeform:index:Fleet", "workers"],
      ["pulumi-nodejs:dynamic/cubeform:Cube", "web"],
      ["pulumi-nodejs:dynamic/cubeform:Cube", "workers-worker-1"],
      ["pulumi-nodejs:dynamic/cubeform:Cube", "workers-worker-2"],
      ["pulumi-nodejs:dynamic/cubeform:Domain", "app"],
      ["pulumi-nodejs:dynamic/cubeform:TcpMapping", "postgres"],
      ["pulumi-nodejs:dynamic/cubeform:TcpMapping", "workers-worker-1-port-9100"],
    ]);
    const byName = Object.fromEntries(registered.map((r) => [r.name, r.inputs]));
    expect(byName.web!.adoptId).toBeUndefined();
    // The file's defaults and ${env:} reference arrive as the CLI would read them.
    expect(byName["workers-worker-1"]).toMatchObject({
      name: "worker-1",
      image: "ubuntu-24.04",
      region: "eu-nuremberg",
      sshPublicKey: SSH_KEY,
      resources: { vcpu: 1, ramGb: 2, diskGb: 10 },
    });
    expect(byName["workers-worker-2"]).toMatchObject({ name: "worker-2", power: "stopped" });
    expect(byName["workers-worker-1-port-9100"]).toMatchObject({
      cubeId: "workers-worker-1-id",
      cubePort: 9100,
      udp: false,
      allow: ["203.0.113.0/24"],
    });
    expect(byName.web).toMatchObject({
      name: "web",
      image: "ubuntu-24.04",
      terminationProtection: true,
      resources: { vcpu: 2, ramGb: 4, diskGb: 40 },
    });
    expect(byName.app).toMatchObject({ cubeId: "web-id", hostname: "app.example.com", port: 8080 });
    expect(byName.app!.basicAuthPassword).toMatchObject({ [SECRET_SIG]: expect.any(String) });
    expect(byName.postgres).toMatchObject({ cubeId: "web-id", cubePort: 5432 });

    for (const { type, inputs } of registered) {
      if (type === "cubeform:index:Fleet") continue;
      const provider = inputs.__provider as string;
      expect(provider).toContain('import("cubeform/provider-runtime")');
      expect(provider).not.toContain(REPO_ROOT);
      expect(provider.length).toBeLessThan(5_000);
      expect(JSON.stringify(inputs)).not.toContain(API_KEY);
    }
    expect(stderr).not.toContain(API_KEY);
  });

  it("adopts a live cube when adoptWebId is set (the adoption path, not Pulumi's import option)", async () => {
    const { registered } = await runExample({ "cubeform-example:adoptWebId": "cube_0123abcd" });
    const web = registered.find((r) => r.name === "web");
    expect(web?.inputs).toMatchObject({ adoptId: "cube_0123abcd", name: "web", image: "ubuntu-24.04" });
  });
});
