/** Issue 34, item 1: the plan shows a group as a group (`cube/web[1..4]`) in markdown (PR comments, step summaries) and GitHub annotations too. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FILE_HEADER } from "./support/cli.js";
import { FAST, FAST_APPLY, test, type CliFixture } from "./support/fixtures.js";

const fleet = (image: string, rollout = ""): string => `${FILE_HEADER.replace("image: ubuntu-24.04", `image: ${image}`)}  - name: web
    replicas: 4
${rollout}`;

const write = (fx: CliFixture, text: string): void => writeFileSync(join(fx.cwd, "cubeform.yaml"), text);

test("markdown and github output name the group cube/web[1..4] with what happens to it: the replace-at-once warning, or the rollout", async ({
  fx,
}) => {
  write(fx, fleet("ubuntu-24.04"));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);

  write(fx, fleet("debian-13"));
  const markdown = await fx.cli(["plan", "--allow-replace", "-o", "markdown", ...FAST]);
  expect(markdown.stdout).toContain(
    "#### Groups of replicas\n\n| Group | Change | Rollout |\n| --- | --- | --- |\n| <code>cube/web\\[1..4\\]</code> | group of 4 replicas; 4 to replace | :warning: this change replaces 4 of the 4 members of group web at once",
  );
  const github = await fx.cli(["plan", "--allow-replace", "-o", "github", ...FAST]);
  expect(github.stdout).toMatch(
    /^::warning file=cubeform\.yaml,line=\d+,col=\d+::cube\/web\[1\.\.4\]: group of 4 replicas; 4 to replace; warning: this change replaces 4 of the 4 members of group web at once/m,
  );

  write(fx, fleet("debian-13", "    rollout: { maxUnavailable: 2 }\n"));
  const rolled = await fx.cli(["plan", "--allow-replace", "-o", "markdown", ...FAST]);
  expect(rolled.stdout).toContain(
    "| <code>cube/web\\[1..4\\]</code> | group of 4 replicas; 4 to replace | rollout: 2 batches of at most 2, each passing its running check for 10 s within 600 s; a failed check stops the rollout |",
  );
  const annotated = await fx.cli(["plan", "--allow-replace", "-o", "github", ...FAST]);
  expect(annotated.stdout).toMatch(
    /^::warning file=cubeform\.yaml,line=\d+,col=\d+::cube\/web\[1\.\.4\]: group of 4 replicas; 4 to replace; rollout: 2 batches of at most 2/m,
  );

  write(fx, fleet("ubuntu-24.04"));
  const inSync = await fx.cli(["plan", "-o", "markdown", ...FAST]);
  expect(inSync.stdout).not.toContain("Groups of replicas");
}, 120_000);
