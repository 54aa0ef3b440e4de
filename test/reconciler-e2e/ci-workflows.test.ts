/**
 * examples/ci/*.yml: valid workflows whose logic holds. Each `run:` script is run with bash as
 * the runner runs it (-eo pipefail), `npx --no-install cubeform` being the built bin, against an emulator:
 * a pull request's plan with changes passes (and is posted), blocked changes and errors fail,
 * the nightly drift check fails on drift only.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { createPlainCube, project, SSH_KEY, type Project } from "./support.js";
import { testCacheHome } from "../support/cache-home.js";
import {
  apiEnv,
  ciShims,
  exampleCi,
  runStep as runStepWith,
  scriptStep as step,
  type GhShim,
  type WorkflowJob as Job,
  type WorkflowStep as Step,
} from "./support/ci-runner.js";

interface Workflow {
  on: Record<string, { branches?: string[]; paths?: string[] } | null>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": unknown };
  jobs: Record<string, Job>;
}

const load = (name: string) => parse(exampleCi(name)) as Workflow;
const drift = load("drift.yml");
const apply = load("apply.yml");

const FILE = `apiVersion: cubeform/v1
cubes:
  - name: solo
    image: ubuntu-24.04
    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
    sshPublicKey: ${SSH_KEY}
`;

/** `gh` fails --edit-last when nothing was commented yet. */
const GH: GhShim = (ghLog) => `case "$*" in *--edit-last*) [ -f "${ghLog}.commented" ] || exit 1 ;; esac\ntouch "${ghLog}.commented"\n`;

const runStep = (s: Step, p: Project, env: Record<string, string>) => runStepWith(s, p, env, GH);

describe("examples/ci/drift.yml", () => {
  test("is a workflow: a plan job on pull requests, a drift job otherwise; no ${{ }} inside a script (injection)", () => {
    expect(Object.keys(drift.on).sort()).toEqual(["pull_request", "schedule", "workflow_dispatch"]);
    expect(drift.jobs.plan?.if).toBe("github.event_name == 'pull_request'");
    expect(drift.jobs.drift?.if).toBe("github.event_name != 'pull_request'");
    expect(drift.jobs.plan?.permissions?.["pull-requests"]).toBe("write");
    expect(drift.permissions).toEqual({ contents: "read" });
    for (const workflow of [drift, apply]) {
      for (const job of Object.values(workflow.jobs)) {
        for (const s of job.steps) {
          expect(s.run ?? "", s.name).not.toContain("${{");
          expect(s.uses ?? s.run, "every step uses an action or runs a script").toBeTruthy();
        }
      }
    }
    const plan = drift.jobs.plan as Job;
    expect(step(plan, "Comment the plan on the pull request").if).toContain("always()");
    // The verdict comes after the comment, from the plan step's recorded status.
    const names = plan.steps.map((s) => s.name);
    expect(names.indexOf("Fail on errors and blocked changes")).toBeGreaterThan(names.indexOf("Comment the plan on the pull request"));
  });

  test("pull request with changes: the plan is posted (summary, comment) and the check passes (plan exits 2 without --fail-on blocked)", async () => {
    const p = await project({ "cubeform.yaml": FILE });
    const plan = drift.jobs.plan as Job;
    const planned = await runStep(step(plan, "Plan"), p, apiEnv(p));
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.outputs.status).toBe("0");
    expect(planned.summary).toContain("solo");
    expect(planned.stdout).toContain("::warning");
    expect(readFileSync(planned.outputs.report ?? "", "utf8")).toBe(planned.summary);
    const verdict = await runStep(step(plan, "Fail on errors and blocked changes"), p, { STATUS: "0" });
    expect(verdict.code).toBe(0);
    const comment = await runStep(step(plan, "Comment the plan on the pull request"), p, {
      PR: "7",
      REPORT: planned.outputs.report ?? "",
      GH_TOKEN: "t",
    });
    expect(comment.code).toBe(0);
    expect(p.mutations()).toBe(0);
  });

  test("pull request with a blocked change (two live cubes of one name): posted, and the check fails", async () => {
    const p = await project({ "cubeform.yaml": FILE });
    for (let i = 0; i < 2; i++) await createPlainCube(p.api, "solo", `twin-${i}`);
    const plan = drift.jobs.plan as Job;
    const planned = await runStep(step(plan, "Plan"), p, apiEnv(p));
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.outputs.status).toBe("2");
    expect(planned.summary).toContain("**Blocked:**");
    const verdict = await runStep(step(plan, "Fail on errors and blocked changes"), p, { STATUS: "2" });
    expect(verdict.code).toBe(1);
    expect(verdict.stdout).toContain("::error::The plan has blocked changes");
  });

  test("pull request with an invalid file: the error is posted and the check fails", async () => {
    const p = await project({ "cubeform.yaml": "apiVersion: cubeform/v1\ncubes: 5\n" });
    const plan = drift.jobs.plan as Job;
    const planned = await runStep(step(plan, "Plan"), p, apiEnv(p));
    expect(planned.outputs.status).toBe("1");
    expect(planned.summary).toContain("### cubeform failed");
    expect(planned.summary).toContain("cubeform.yaml:2");
    expect((await runStep(step(plan, "Fail on errors and blocked changes"), p, { STATUS: "1" })).code).toBe(1);
    expect((await runStep(step(plan, "Fail on errors and blocked changes"), p, { STATUS: "" })).code).toBe(1);
  });

  test("pull request whose file has a key that closes a fence: the posted error stays text (no heading, no image)", async () => {
    const p = await project({
      "cubeform.yaml":
        'apiVersion: cubeform/v1\ncubes: []\n"x\\n```\\n# Fake heading\\n![img](https://attacker.example/i.png)<img src=x>": 1\n',
    });
    const planned = await runStep(step(drift.jobs.plan as Job, "Plan"), p, apiEnv(p));
    expect(planned.outputs.status).toBe("1");
    const posted = planned.summary.slice(planned.summary.indexOf("### cubeform failed"));
    // Markdown is not read inside <pre>; the error cannot close it (every "<" in it is escaped).
    const inside = /^### cubeform failed\n\n<pre>\n([^]*)\n<\/pre>\n$/.exec(posted)?.[1];
    expect(inside).toContain("Fake heading");
    expect(inside).not.toContain("<");
    expect(inside).toContain("&lt;img src=x&gt;");
  });

  test("pull request from a fork (no key): the file is validated and the run says so", async () => {
    const p = await project({ "cubeform.yaml": FILE });
    const planned = await runStep(step(drift.jobs.plan as Job, "Plan"), p, { CUBE_API_KEY: "" });
    expect(planned.outputs.status).toBe("0");
    expect(planned.summary).toContain("validated, not planned");
  });

  test("the comment is edited on later pushes, created the first time", async () => {
    const p = await project({ "cubeform.yaml": FILE });
    const comment = step(drift.jobs.plan as Job, "Comment the plan on the pull request");
    const bins = ciShims(GH);
    const run = async () => {
      const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", comment.run ?? ""], {
        cwd: p.cwd,
        env: { PATH: `${bins.path}:${process.env.PATH ?? ""}`, ...testCacheHome(), PR: "7", REPORT: "plan.md" },
        stdio: "ignore",
      });
      return new Promise<number | null>((resolve) => child.on("close", resolve));
    };
    expect(await run()).toBe(0);
    expect(await run()).toBe(0);
    expect(readFileSync(bins.ghLog, "utf8").trim().split("\n")).toEqual([
      "pr comment 7 --edit-last --body-file plan.md",
      "pr comment 7 --body-file plan.md",
      "pr comment 7 --edit-last --body-file plan.md",
    ]);
  });

  test("schedule: in sync passes (after apply.yml's apply), drift fails the run with exit 2", async () => {
    const p = await project({ "cubeform.yaml": FILE });
    const applied = await runStep(step(apply.jobs.apply as Job, "Apply"), p, apiEnv(p));
    expect(applied.code, applied.stderr).toBe(0);
    const check = step(drift.jobs.drift as Job, "Check for drift");
    const inSync = await runStep(check, p, apiEnv(p));
    expect(inSync.code, inSync.stderr + inSync.stdout).toBe(0);
    const [cube] = (await p.api.listCubes()).filter((c) => c.name === "solo");
    await p.api.deleteCube(cube?.id ?? "");
    const drifted = await runStep(check, p, apiEnv(p));
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain("::error::The live space has drifted from cubeform.yaml");
    expect(drifted.summary).not.toBe("");
  });
});

describe("examples/ci/apply.yml (issue 31 item 19)", () => {
  const job = apply.jobs.apply as Job;
  const index = (predicate: (s: Step) => boolean) => job.steps.findIndex(predicate);

  test("runs on every push to main, not only when cubeform.yaml changes (key files, cloud-init and -f files count too)", () => {
    expect(apply.on.push?.branches).toEqual(["main"]);
    expect(apply.on.push?.paths).toBeUndefined();
    expect((apply.on.push as Record<string, unknown>)["paths-ignore"]).toBeUndefined();
  });

  test("keeps .cubeform/ between runs: restored from the branch's cache before the apply, saved after it even when it failed", () => {
    const applyAt = index((s) => s.name === "Apply");
    const restoreAt = index((s) => (s.uses ?? "").startsWith("actions/cache/restore@"));
    const saveAt = index((s) => (s.uses ?? "").startsWith("actions/cache/save@"));
    expect(restoreAt).toBeGreaterThan(-1);
    expect(restoreAt).toBeLessThan(applyAt);
    expect(saveAt).toBeGreaterThan(applyAt);
    const restore = job.steps[restoreAt] as Step;
    const save = job.steps[saveAt] as Step;
    expect(save.if).toBe("always()");
    for (const s of [restore, save]) expect(s.with?.path).toBe(".cubeform");
    // Keyed by branch (and space); a new entry per run, the newest of the branch restored.
    expect(save.with?.key).toBe(restore.with?.key);
    expect(restore.with?.key).toContain("${{ github.ref_name }}");
    expect(restore.with?.key).toContain("${{ github.run_id }}");
    const prefix = (restore.with?.["restore-keys"] ?? "").trim();
    expect(prefix).toContain("${{ github.ref_name }}");
    expect((restore.with?.key ?? "").startsWith(prefix)).toBe(true);
    // The apply reads .cubeform/ beside the file it names, in the checkout's root: where the cache puts it.
    expect(step(job, "Apply").run).toMatch(/ -f cubeform\.yaml$/);
  });
});
