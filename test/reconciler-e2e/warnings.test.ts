/**
 * A warning (a space's default cap passed) is said once per run, as an annotation under
 * --format github, and `warnings: { ignore: [KIND] }` in the file silences its kind (issue 22 item 6).
 */
import { expect, test } from "vitest";
import { describeRun, plainFleet, RATE, project, waitFor } from "./support.js";

const BIG = plainFleet("web", "db").replace("  - name: web\n", "  - name: web\n    resources: { vcpu: 1, ramGb: 1, diskGb: 120 }\n");
const DISK_WARNING = `cube "web": resources.diskGb 120 is above a space's default cap of 100 GB disk.`;

test("under --format github a warning is an annotation at its line, escaped, and nothing on stderr (issue 22 item 6)", async () => {
  const p = await project({ "big,fleet.yaml": BIG });
  for (const command of ["validate", "plan"]) {
    const run = await p.run([command, "-f", "big,fleet.yaml", "--format", "github", ...(command === "plan" ? RATE : [])]);
    expect(run.stdout, describeRun(run)).toContain(`::warning file=big%2Cfleet.yaml,line=8,col=16::${DISK_WARNING}`);
    expect(run.stdout).toContain("(To silence it: warnings: { ignore: [disk-cap] } in the file.)");
    expect(run.stderr).not.toContain("warning");
  }
});

test("warnings: { ignore: [disk-cap] } silences that kind and no other (issue 22 item 6)", async () => {
  const p = await project({
    "cubeform.yaml": `${BIG}warnings: { ignore: [disk-cap] }\n`,
    "cpu.yaml": `${BIG.replace("vcpu: 1, ramGb: 1, diskGb: 120", "vcpu: 32, ramGb: 1, diskGb: 120")}warnings: { ignore: [disk-cap] }\n`,
  });
  const silenced = await p.run(["plan", ...RATE]);
  expect(silenced.code, describeRun(silenced)).toBe(2);
  expect(silenced.stderr).toBe("");
  const other = await p.run(["validate", "-f", "cpu.yaml"]);
  expect(other.stderr).toContain('warning: cpu.yaml:8:16: cube "web": resources.vcpu 32 is above');
  expect(other.stderr).not.toContain("diskGb");
});

test("watch says a warning once, not every round (issue 22 item 6)", async () => {
  const p = await project({ "cubeform.yaml": BIG });
  const watch = p.start(["watch", "--interval", "100ms", ...RATE]);
  await waitFor(() => (watch.stdout().match(/round \d+: /g)?.length ?? 0) >= 3 || undefined, {
    timeoutMs: 20_000,
    message: "three rounds",
  });
  watch.process.kill("SIGTERM");
  const run = await watch.exited;
  expect(run.stderr.split(DISK_WARNING).length - 1, describeRun(run)).toBe(1);
});
