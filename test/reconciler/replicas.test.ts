/** Issue 34, item 1: `replicas: N` declares members NAME-1 … NAME-N; the plan shows the group as a group; scaling down removes the highest indexes, never a protected member. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FILE_HEADER } from "./support/cli.js";
import { FAST, FAST_APPLY, test, type CliFixture } from "./support/fixtures.js";

const group = (replicas: number, extra = ""): string => `${FILE_HEADER}  - name: web
    replicas: ${replicas}${extra}
`;

const WITH_DOMAINS = `
    domains:
      - hostname: "web-{i}.example.com"
        port: 8080
    ports:
      - cubePort: 5432
        label: "{name}-pg"
`;

function write(fx: CliFixture, text: string): void {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), text);
}

async function liveNames(fx: CliFixture): Promise<string[]> {
  return (await fx.api.listCubes())
    .filter((c) => c.state !== "deleted")
    .map((c) => c.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

test("a group of 4: members web-1 … web-4 with their own hostnames and port labels; the plan shows cube/web[1..4] in text and JSON", async ({
  fx,
}) => {
  write(fx, group(4, WITH_DOMAINS));
  const planned = await fx.cli(["plan", ...FAST]);
  expect(planned.stderr).toBe("");
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("cube/web[1..4] (group of 4 replicas; 0 to replace)");
  expect(planned.stdout).toMatch(/\n {4}\+ cube\/web-1 \(create\)/);
  expect(planned.stdout).toContain("+ cube/web-4/domain/web-4.example.com (create)");

  const json = JSON.parse((await fx.cli(["plan", "--format", "json", ...FAST])).stdout) as {
    groups: { name: string; replicas: number }[];
    changes: { address: string; group?: string }[];
  };
  expect(json.groups).toEqual([{ name: "web", replicas: 4, live: 0, replacing: 0 }]);
  const members = json.changes.filter((c) => c.group === "web").map((c) => c.address);
  expect(members).toContain("cube/web-3");
  expect(members).toContain("cube/web-3/port/5432");
  expect(json.changes.every((c) => c.group === "web")).toBe(true);

  const applied = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
  expect(await liveNames(fx)).toEqual(["web-1", "web-2", "web-3", "web-4"]);
  const web2 = (await fx.api.listCubes()).find((c) => c.name === "web-2");
  const domains = await fx.api.listDomains(web2?.id as string);
  expect(domains.map((d) => d.hostname)).toEqual(["web-2.example.com"]);
  const mappings = await fx.api.listTcpMappings(web2?.id as string);
  expect(mappings.find((m) => m.cubePort === 5432)?.label).toBe("web-2-pg");
  expect((await fx.cli(["plan", ...FAST])).exitCode).toBe(0);
});

test("scaling 10 → 4 → 10: members 5–10 are removed highest first, then recreated; a protected member is never removed (blocked)", async ({
  fx,
}) => {
  write(fx, group(10));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  const web7 = (await fx.api.listCubes()).find((c) => c.name === "web-7");
  await fx.api.setTerminationProtection(web7?.id as string, true);

  write(fx, group(4));
  const planned = await fx.cli(["plan", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("cube/web[1..4] (group of 4 replicas, scaling 10 → 4; 0 to replace)");
  expect(planned.stdout).toContain("- cube/web-10 (destroy)");
  expect(planned.stdout).toContain('blocked: cube "web-7" is a member of group web beyond replicas: 4 and has terminationProtection on');
  expect(planned.stdout).not.toContain("Unmanaged cubes");
  const json = JSON.parse((await fx.cli(["plan", "--format", "json", ...FAST])).stdout) as {
    steps: { op: string; address: string }[];
    changes: { address: string; group?: string }[];
  };
  expect(json.steps.filter((s) => s.op === "delete-cube").map((s) => s.address)).toEqual([
    "cube/web-10",
    "cube/web-9",
    "cube/web-8",
    "cube/web-6",
    "cube/web-5",
  ]);
  expect(json.changes.find((c) => c.address === "cube/web-7")?.group).toBe("web");

  const down = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(down.exitCode, "the protected member stays: blocked, exit 1").toBe(1);
  expect(await liveNames(fx)).toEqual(["web-1", "web-2", "web-3", "web-4", "web-7"]);

  write(fx, group(10));
  const up = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(up.exitCode, up.stdout + up.stderr).toBe(0);
  expect(await liveNames(fx)).toEqual(["web-1", "web-2", "web-3", "web-4", "web-5", "web-6", "web-7", "web-8", "web-9", "web-10"]);
  expect((await fx.api.listCubes()).find((c) => c.name === "web-7")?.id, "web-7 was never replaced").toBe(web7?.id);
});

test("without rollout, a change that replaces more than half of a group warns in the plan; the other members are unchanged", async ({
  fx,
}) => {
  write(fx, group(4));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  write(fx, group(4).replace("image: ubuntu-24.04", "image: debian-13"));
  const planned = await fx.cli(["plan", "--allow-replace", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("warning: this change replaces 4 of the 4 members of group web at once");
  const json = JSON.parse((await fx.cli(["plan", "--allow-replace", "--format", "json", ...FAST])).stdout) as {
    groups: { warning?: string }[];
  };
  expect(json.groups[0]?.warning).toContain("add rollout:");
});

test("a hostname every replica would share, and a name too long for its members, are located errors", async ({ fx }) => {
  write(
    fx,
    `${FILE_HEADER}  - name: web
    replicas: 2
    domains:
      - hostname: app.example.com
        port: 8080
  - name: ${"a".repeat(62)}
    replicas: 10
  - name: web-2
`,
  );
  const result = await fx.cli(["validate"]);
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain("every one of the 2 replicas would claim app.example.com");
  expect(result.stderr).toContain("is not a valid cube name (at most 64 characters)");
  expect(result.stderr).toContain('"web-2" is a member of the group cubes[0] (web, replicas: 2)');
});
