/**
 * watch re-reads its files every round; LoadCache answers the same loaded state while the YAML
 * and every file it refers to read back the same, and loads afresh as soon as one differs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { LoadCache } from "../../desired/index.js";
import { loadDesiredFiles } from "../../desired/sources.js";
import { SSH_KEY, tempProject } from "../reconciler/support/cli.js";

const FLEET = (power: string) =>
  `apiVersion: cubeform/v1\ncubes:\n  - name: web\n    image: ubuntu-24.04\n    region: eu-nuremberg\n    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n    sshPublicKey: ${SSH_KEY}\n    userDataFile: init.sh\n    power: ${power}\n`;

test("an unchanged file and its userDataFile are not loaded again; a change to either is", async () => {
  const cwd = tempProject();
  writeFileSync(join(cwd, "cubeform.yaml"), FLEET("running"));
  writeFileSync(join(cwd, "init.sh"), "#!/bin/sh\necho one\n");
  const cache = new LoadCache();
  const env = {};
  const load = () => loadDesiredFiles({ files: ["cubeform.yaml"], cwd, env, cache });
  const first = await load();
  expect(await load()).toBe(first);

  writeFileSync(join(cwd, "init.sh"), "#!/bin/sh\necho two\n");
  const second = await load();
  expect(second).not.toBe(first);
  expect(second.desired.cubes[0]?.userData).toContain("echo two");
  expect(await load()).toBe(second);

  writeFileSync(join(cwd, "cubeform.yaml"), FLEET("stopped"));
  const third = await load();
  expect(third.desired.cubes[0]?.power).toBe("stopped");

  // A file with a problem is reported every round, never kept.
  writeFileSync(join(cwd, "cubeform.yaml"), FLEET("sleeping"));
  await expect(load()).rejects.toThrow(/not valid/);
  await expect(load()).rejects.toThrow(/not valid/);
  writeFileSync(join(cwd, "cubeform.yaml"), FLEET("stopped"));
  expect((await load()).desired.cubes[0]?.power).toBe("stopped");
});
