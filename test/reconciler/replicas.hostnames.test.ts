/** Two groups whose hostnames carry {name} are distinct per member; two whose members' hostnames are the same ({i} only) are one hostname twice. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FILE_HEADER } from "./support/cli.js";
import { test } from "./support/fixtures.js";

const group = (name: string, hostname: string): string => `  - name: ${name}
    replicas: 3
    domains:
      - hostname: "${hostname}"
        port: 8080
`;

test("validate: the duplicate-hostname check compares the members' hostnames, not the entries' templates", async ({ fx }) => {
  writeFileSync(
    join(fx.cwd, "cubeform.yaml"),
    FILE_HEADER + group("web", "www.{name}.example.com") + group("api", "www.{name}.example.com"),
  );
  const distinct = await fx.cli(["validate"]);
  expect(distinct.exitCode, distinct.stderr).toBe(0);

  writeFileSync(join(fx.cwd, "cubeform.yaml"), FILE_HEADER + group("web", "node-{i}.example.com") + group("api", "node-{i}.example.com"));
  const clash = await fx.cli(["validate"]);
  expect(clash.exitCode).toBe(1);
  expect(clash.stderr).toContain("cubes[1].domains[0].hostname: duplicate hostname node-1.example.com (also cubes[0].domains[0])");
});
