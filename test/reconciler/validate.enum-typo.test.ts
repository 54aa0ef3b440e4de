/** A typo in a value with many allowed ones (webhook events: 45) names the closest one instead of listing them all. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { SSH_KEY } from "./support/cli.js";
import { test } from "./support/fixtures.js";

const file = (events: string) => `apiVersion: cubeform/v1
cubes:
  - name: web
    image: ubuntu-24.04
    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
    sshPublicKey: ${SSH_KEY}
webhooks:
  - url: https://hooks.example.com/cube
    events: [cube.deleted, ${events}]
    secretFile: hook.secret
`;

test("a webhook event typo: did you mean, at the typo's position, not 45 events", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), file("domain.remove"));
  const run = await fx.cli(["validate"]);
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toContain(
    'cubeform.yaml:9:28: webhooks[0].events[1]: "domain.remove" is not one of the 45 allowed values (did you mean "domain.removed"?)\n',
  );
  expect(run.stderr).not.toContain("member.role_changed");
});

test("a value nothing resembles: a short sample, still not the whole list", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), file("zzzzzz"));
  const run = await fx.cli(["validate"]);
  expect(run.stderr).toContain(
    'webhooks[0].events[1]: "zzzzzz" is not one of the 45 allowed values (cube.created, cube.running, cube.stopped, …)\n',
  );
});
