/**
 * Issue 35 item 3: a rollout that fails its health check and is reverted (autoRevert) is told as one `rollout.reverted` naming the group and
 * the members put back, not as a plain apply.failed (engine/rollout.ts marks the batch's outcome with the members it reverted).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { startReceiver } from "../support/notify-receiver.js";
import { FILE_HEADER } from "./support/cli.js";
import { FAST_APPLY, test } from "./support/fixtures.js";

const OLD = "ubuntu-24.04";
const NEW = "debian-13";

function fleet(image: string): string {
  return `${FILE_HEADER.replace(`image: ${OLD}`, `image: ${image}`)}  - name: web
    replicas: 3
    rollout:
      canary: 1
      autoRevert: true
      healthCheck:
        running: true
        healthyFor: 200ms
        deadline: 30s
`;
}

test("apply --notify: a canary that ends in state error is reverted and told once as rollout.reverted", async ({ fx }) => {
  const write = (text: string): void => writeFileSync(join(fx.cwd, "cubeform.yaml"), text);
  write(fleet(OLD));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  const receiver = await startReceiver();
  fx.emulator.admin.setImageFault(NEW, "error");
  write(fleet(NEW));
  const applied = await fx.cli(["apply", "--auto-approve", "--allow-replace", ...FAST_APPLY, "--notify", receiver.url]);
  expect(applied.exitCode).toBe(1);
  expect(receiver.accepted().map((r) => r.body.type)).toEqual(["rollout.reverted"]);
  const event = receiver.accepted()[0]!.body as {
    summary: string;
    details: { group: string; reverted: string[]; batch: number; message: string };
  };
  expect(event.details).toMatchObject({ group: "web", reverted: ["web-1"], batch: 1 });
  expect(event.summary).toContain("rollout of group web failed at batch 1");
  expect(event.details.message).toContain("is in state error");
}, 120_000);
