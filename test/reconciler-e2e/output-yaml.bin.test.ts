/** `-o yaml` from the installed bin (the bundled CLI loads the yaml library as CommonJS): version's own YAML and a command's JSON as YAML. */
import { parse } from "yaml";
import { expect, test } from "vitest";
import { RATE, createPlainCube, describeRun, project } from "./support.js";

test("version -o yaml and cube list -o yaml print YAML from the bin", { timeout: 60_000 }, async () => {
  const p = await project();
  const version = await p.run(["version", "-o", "yaml"]);
  expect(version.code, describeRun(version)).toBe(0);
  expect(parse(version.stdout)).toMatchObject({ version: expect.any(String), node: process.versions.node });
  await createPlainCube(p.api, "web");
  const list = await p.run(["cube", "list", "-o", "yaml", ...RATE]);
  expect(list.code, describeRun(list)).toBe(0);
  expect((parse(list.stdout) as { name: string }[]).map((c) => c.name)).toEqual(["web"]);
});
