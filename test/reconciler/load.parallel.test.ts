/**
 * A file of 4,000+ cubes is read on two threads (load.ts loadLightInParallel: a worker takes
 * the cubes at the end). What comes out must be exactly the one-thread load's, and a problem in
 * the worker's share must be reported exactly as any other, at its file:line:col. Runs the built
 * modules (dist/, made by the test setup): the worker is the built load-worker.js.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { SSH_KEY, tempProject } from "./support/cli.js";

const dist = "../../dist/reconciler/load.js";
const { loadDesiredState, loadDesiredStateSync, piecesForWorker, workerStats } = (await import(dist)) as typeof import("../../reconciler/load.js");

function fleet(n: number, last = ""): string {
  const cubes = Array.from({ length: n }, (_, i) =>
    [
      `  - name: c${i}`,
      `    power: ${i % 2 === 0 ? "running" : "stopped"}`,
      "    domains:",
      `      - hostname: www.c${i}.example.com`,
      "        port: 8080",
      // Secrets in the worker's share too: their variables' names come back from it.
      ...(i % 1000 === 999 ? [`        basicAuthUser: admin`, `        basicAuthPassword: \${env:PASS_${i}}`] : []),
      "    ports:",
      `      - { cubePort: 5432, label: "\${env:LABEL}", allow: [10.0.0.0/8] }`,
    ].join("\n"),
  );
  return `apiVersion: cubeform/v1\ndefaults:\n  image: ubuntu-24.04\n  region: eu-nuremberg\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  sshPublicKey: ${SSH_KEY}\ncubes:\n${cubes.join("\n")}\n${last}`;
}

const env: Record<string, string> = { LABEL: "pg", ...Object.fromEntries(Array.from({ length: 5 }, (_, k) => [`PASS_${k * 1000 + 999}`, "s3cret"])) };

test("4,500 cubes: a worker takes its share, and the load equals the one-thread load", async () => {
  expect(piecesForWorker(4_500)).toBeGreaterThan(0);
  expect(piecesForWorker(1_000)).toBe(0);
  const cwd = tempProject({ "cubeform.yaml": fleet(4_500) });
  const answered = workerStats.answers;
  const parallel = await loadDesiredState({ file: "cubeform.yaml", cwd, env });
  expect(workerStats.answers).toBe(answered + 1);
  const single = loadDesiredStateSync({ file: "cubeform.yaml", cwd, env });
  expect(parallel.desired.cubes).toHaveLength(4_500);
  expect(parallel.desired).toEqual(single.desired);
  expect(parallel.cubePositions).toEqual(single.cubePositions);
  expect(parallel.cubePositions["c4499"]).toEqual({ line: 8 + 4499 * 7 + 4 * 2, col: 5 });
  expect(parallel.cubeNames).toEqual(single.cubeNames);
  expect(parallel.secretEnvNames.sort()).toEqual(single.secretEnvNames.sort());
  expect(parallel.secretEnvNames).toHaveLength(4);
});

test("a problem in the last cube (the worker's share) is reported at its line and column, like any other", async () => {
  const text = fleet(4_500).replace("  - name: c4497\n    power: stopped", "  - name: c4497\n    power: sleeping");
  const cwd = tempProject({ "cubeform.yaml": text });
  const line = text.split("\n").indexOf("    power: sleeping") + 1;
  const failure = await loadDesiredState({ file: "cubeform.yaml", cwd, env }).then(
    () => undefined,
    (e: unknown) => e as { problems: { line: number; col: number; message: string }[] },
  );
  expect(failure?.problems.map((p) => [p.line, p.col])).toEqual([[line, 12]]);
  expect(failure?.problems[0]?.message).toContain("power");
  expect(readFileSync(join(cwd, "cubeform.yaml"), "utf8")).toBe(text);
});

test("a missing variable in the worker's share is a problem, as in one thread", async () => {
  const cwd = tempProject({ "cubeform.yaml": fleet(4_500) });
  const { PASS_4999: _gone, ...without } = { ...env, PASS_4999: "" };
  delete (without as Record<string, string>)["PASS_3999"];
  await expect(loadDesiredState({ file: "cubeform.yaml", cwd, env: without })).rejects.toMatchObject({ problems: [expect.objectContaining({ message: expect.stringContaining("PASS_3999") })] });
  writeFileSync(join(cwd, "cubeform.yaml"), fleet(10));
  expect((await loadDesiredState({ file: "cubeform.yaml", cwd, env: without })).desired.cubes).toHaveLength(10);
});
