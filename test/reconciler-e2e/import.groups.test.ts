/** Issue 34, item 1: `import` writes `replicas: N` where live names form a group (web-1 … web-N, one spec), and a plan of that file shows no changes. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { APPLY, FLEET_HEADER, RATE, SSH_KEY, describeRun, project } from "./support.js";

const member = (name: string, image = "ubuntu-24.04"): string => `  - name: ${name}
    image: ${image}
    domains:
      - hostname: ${name}.example.com
        port: 8080
    ports:
      - cubePort: 9100
        label: metrics-${name}
`;

const FLEET = `${FLEET_HEADER}${member("web-1")}${member("web-2")}${member("web-3")}${member("db-1")}${member("db-2", "debian-13")}  - name: solo-1
`;

test("import writes web-1..web-3 (one spec) as a group with replicas: 3 and {name} in hostnames and labels; db-1/db-2 (two images) and solo-1 stay cube by cube; the plan shows no changes", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);

  const imported = await p.run(["import", "-O", "imported.yaml", ...RATE]);
  expect(imported.code, describeRun(imported)).toBe(0);
  const yaml = readFileSync(join(p.cwd, "imported.yaml"), "utf8");
  expect(yaml).toMatch(
    /# group of 3 \(web-1 … web-3\), ids cube_\w+, cube_\w+, cube_\w+\n\s+- name: web\n\s+replicas: 3\n\s+image: ubuntu-24.04/,
  );
  expect(yaml).toContain('hostname: "{name}.example.com"');
  expect(yaml).toContain("label: metrics-{name}");
  expect(yaml).not.toMatch(/name: web-\d/);
  expect(yaml).toMatch(/- name: db-1\n/);
  expect(yaml).toMatch(/- name: db-2\n/);
  expect(yaml).toMatch(/- name: solo-1\n/);

  const plan = await p.run(["plan", "-f", "imported.yaml", ...RATE], { CUBE_SSH_PUBLIC_KEY: SSH_KEY });
  expect(plan.code, describeRun(plan)).toBe(0);
  expect(plan.stdout).toContain("No changes");
}, 120_000);
