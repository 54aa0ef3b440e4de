/** Issue 11, item 11: singular wording, and FORCE_COLOR honoured. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { SSH_KEY } from "./support/cli.js";
import { FAST_APPLY, test } from "./support/fixtures.js";

const oneCube = `apiVersion: cubeform/v1\ncubes:\n  - name: solo\n    image: ubuntu-24.04\n    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n    sshPublicKey: ${SSH_KEY}\n`;

test("one change: 'Apply this change?' and '1 API mutation sent'", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), oneCube);
  const result = await fx.cli(["apply", ...FAST_APPLY], { ttyInput: "yes\n" });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stdout).toContain("Apply this change? (yes/no)");
  expect(result.stdout).not.toContain("Apply these 1 changes");
  expect(result.stdout).toContain("; 1 API mutation sent.");
});

test("FORCE_COLOR colors the plan off a terminal; FORCE_COLOR=0 does not", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), oneCube);
  expect((await fx.cli(["plan", "--rate-limit", "1000/60"], { env: { FORCE_COLOR: "1" } })).stdout).toContain("\u001b[");
  expect((await fx.cli(["plan", "--rate-limit", "1000/60"], { env: { FORCE_COLOR: "0" } })).stdout).not.toContain("\u001b[");
});
