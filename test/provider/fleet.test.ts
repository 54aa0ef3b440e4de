/**
 * The Fleet component: the CLI's YAML file in a Pulumi program. Through the real plugin (the
 * up-runner drives `pulumi up`): the first up creates a Cube, Domain, TcpMapping and Webhook per
 * entry, writes the webhook secret to its secretFile (0600), and the second up shows no changes;
 * `cubeform plan` on the same file then agrees that the space matches it. A bad file fails the
 * program with the CLI's file:line:col message. Under setMocks: the children and their inputs.
 */
import { execFile } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { testCacheHome } from "../support/cache-home.js";
import { REPO_ROOT } from "./harness.js";
import { SSH_KEY } from "./support/stack.js";
import { upStackForFile, type UpStack } from "./support/up.js";

const run = promisify(execFile);

const FLEET_YAML = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: \${env:FLEET_SSH_KEY}
cubes:
  - name: web
    sshPort: 2222
    domains:
      - hostname: app.fleet.example.com
        port: 8080
        responseCompression: true
    ports: [{ cubePort: 5432, label: postgres, udp: false, allow: [203.0.113.0/24] }]
webhooks:
  - url: http://127.0.0.1:9/fleet
    events: [cube.deleted, tcp_mapping.removed]
    secretFile: secrets/fleet.secret
`;

const PROGRAM = `import { Fleet } from "cubeform/provider";
const fleet = new Fleet("prod", { file: "cubeform.yaml" });
export const webId = fleet.cubes.web!.cubeId;
`;

let emulator: RunningEmulator;
let stack: UpStack;
upStackForFile("fleet", { "cubeform.yaml": FLEET_YAML, "index.ts": PROGRAM }, (file) => ({ emulator, stack } = file));

describe("Fleet", () => {
  it("creates a child per entry through the plugin, then a second pulumi up shows no changes", { timeout: 120_000 }, async () => {
    process.env.FLEET_SSH_KEY = SSH_KEY;
    const [first, second] = await stack.up("index.ts", { runs: 2 });
    expect(first!.error).toBeNull();
    const created = first!.steps.map((s) => `${s.urn.split("::")[2]} ${s.urn.split("::").pop()} ${s.op}`).sort();
    expect(created).toEqual([
      "pulumi-nodejs:dynamic/cubeform:Cube prod-web create",
      "pulumi-nodejs:dynamic/cubeform:Domain prod-web-app.fleet.example.com create",
      "pulumi-nodejs:dynamic/cubeform:TcpMapping prod-web-port-5432 create",
      "pulumi-nodejs:dynamic/cubeform:Webhook prod-webhook-http://127.0.0.1:9/fleet create",
    ]);
    expect(second!.error).toBeNull();
    expect(second!.steps.map((s) => s.op)).toEqual(["same", "same", "same", "same"]);

    const secretPath = join(stack.dir, "secrets", "fleet.secret");
    expect(readFileSync(secretPath, "utf8")).toMatch(/^whsec_/);
    expect(statSync(secretPath).mode & 0o777).toBe(0o600);
    // The state keeps the secret as an output (the engine encrypts it: additionalSecretOutputs).
    expect(first!.pluginStderr).not.toContain(readFileSync(secretPath, "utf8").trim());

    const live = await fetch(`${emulator.url}/spaces/${emulator.spaceId}/cubes`, { headers: { "X-API-KEY": emulator.apiKey } }).then(
      (r) => r.json() as Promise<{ cubes: { id: string; name: string }[] }>,
    );
    expect(live.cubes.map((c) => c.name)).toEqual(["web"]);
    expect(second!.outputs.webId).toBe(live.cubes[0]!.id);

    // The other front door agrees: the space matches the file.
    const plan = await run(
      process.execPath,
      [join(REPO_ROOT, "bin/cubeform.js"), "plan", "-f", "cubeform.yaml", "--rate-limit", "1000/60"],
      {
        cwd: stack.dir,
        env: {
          PATH: process.env.PATH ?? "",
          CUBE_API_URL: emulator.url,
          CUBE_API_KEY: emulator.apiKey,
          FLEET_SSH_KEY: SSH_KEY,
          XDG_STATE_HOME: stack.dir,
          ...testCacheHome(),
          NO_COLOR: "1",
        },
      },
    );
    expect(plan.stdout).toContain("No changes");
  });

  it("a bad file fails the program with the CLI's file:line:col message, and nothing is created", { timeout: 60_000 }, async () => {
    writeFileSync(join(stack.dir, "cubeform.yaml"), FLEET_YAML.replace("cube.deleted", "cube.exploded"));
    const [result] = await stack.up("index.ts");
    expect(result!.error).toMatch(/cubeform\.yaml:\d+:\d+: webhooks\[0\]\.events\[0\]/);
    expect(result!.steps.filter((s) => s.op === "create")).toEqual([]);
    writeFileSync(join(stack.dir, "cubeform.yaml"), FLEET_YAML);
  });
});
