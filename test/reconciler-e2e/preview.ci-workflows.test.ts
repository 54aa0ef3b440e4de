/**
 * examples/ci/preview.yml (GitHub Actions) and preview.gitlab-ci.yml: their key properties, read from the parsed YAML (fork pull
 * requests get no credentials, closed → down, schedule → sweep, on_stop), and the GitHub scripts run with bash as the runner
 * runs them, `npx --no-install cubeform` being the built bin, against the emulator.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { project, SSH_KEY, type Project } from "./support.js";
import {
  apiEnv,
  exampleCi as read,
  runStep as runStepWith,
  scriptStep as stepOf,
  type GhShim,
  type WorkflowJob as Job,
  type WorkflowStep as Step,
} from "./support/ci-runner.js";

interface GitLabJob {
  rules?: { if?: string; when?: string }[];
  script?: string[];
  before_script?: string[];
  variables?: Record<string, string>;
  environment?: { name: string; on_stop?: string; action?: string };
}

const github = parse(read("preview.yml")) as {
  on: Record<string, { types?: string[] } | unknown>;
  permissions: Record<string, string>;
  concurrency: { group: string; "cancel-in-progress": boolean };
  jobs: Record<string, Job>;
};
const gitlab = parse(read("preview.gitlab-ci.yml")) as Record<string, GitLabJob>;

const job = (name: string): Job => github.jobs[name] as Job;

/** `gh pr list` answers the open pull requests of $OPEN_PRS as --jq would. */
const GH: GhShim = () => `case "$*" in "pr list"*) for n in $OPEN_PRS; do printf 'pr-%s' "$n"; done; echo ;; esac\n`;

const runStep = (s: Step, p: Project, env: Record<string, string>) => runStepWith(s, p, env, GH);

const FILE = `apiVersion: cubeform/v1
preview:
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
cubes:
  - name: app
    image: ubuntu-24.04
    resources: { vcpu: 2, ramGb: 2, diskGb: 20 }
    sshPublicKey: ${SSH_KEY}
`;

describe("examples/ci/preview.yml", () => {
  test("pull_request (never pull_request_target): opened/synchronize/reopened → up, closed → down, schedule → sweep; forks get no job with the key", () => {
    expect(Object.keys(github.on).sort()).toEqual(["pull_request", "schedule", "workflow_dispatch"]);
    expect(read("preview.yml")).not.toMatch(/^\s*pull_request_target\s*:/m);
    expect((github.on.pull_request as { types: string[] }).types.sort()).toEqual(["closed", "opened", "reopened", "synchronize"]);
    expect(github.permissions).toEqual({ contents: "read" });
    expect(github.concurrency["cancel-in-progress"]).toBe(false);
    expect(job("up").if).toContain("github.event.action != 'closed'");
    expect(job("down").if).toContain("github.event.action == 'closed'");
    expect(job("sweep").if).toBe("github.event_name != 'pull_request'");
    for (const name of ["up", "down"]) expect(job(name).if).toContain("github.event.pull_request.head.repo.full_name == github.repository");
    expect(stepOf(job("up"), "Preview up").run).toContain('npx --no-install cubeform preview up --id "pr-$PR"');
    expect(stepOf(job("down"), "Preview down").run).toContain('npx --no-install cubeform preview down --id "pr-$PR"');
    expect(stepOf(job("sweep"), "Preview sweep").run).toContain('npx --no-install cubeform preview sweep --keep "$open"');
    for (const j of Object.values(github.jobs)) {
      for (const s of j.steps) {
        // Values reach scripts through env (no ${{ }} expanded into a script: injection), the key only where cubeform runs.
        expect(s.run ?? "", s.name).not.toContain("${{");
        if (s.env?.CUBE_API_KEY !== undefined) expect(s.run, s.name).toContain("npx --no-install cubeform preview");
      }
    }
  });

  test("the scripts against the emulator: up, up again, down twice, then the nightly sweep keeps the open pull requests", {
    timeout: 120_000,
  }, async () => {
    const p = await project({ "cubeform.yaml": FILE });
    const env = apiEnv(p);
    for (const pr of ["4", "5", "6"]) {
      const up = await runStep(stepOf(job("up"), "Preview up"), p, { ...env, PR: pr });
      expect(up.code, up.stderr).toBe(0);
      expect(up.summary).toContain(`<!-- cubeform-preview:pr-${pr} -->`);
    }
    const again = await runStep(stepOf(job("up"), "Preview up"), p, { ...env, PR: "4" });
    expect(again.code, again.stderr).toBe(0);
    for (let i = 0; i < 2; i++) {
      const down = await runStep(stepOf(job("down"), "Preview down"), p, { ...env, PR: "4" });
      expect(down.code, down.stderr).toBe(0);
    }
    const names = async () =>
      (await p.api.listCubes())
        .filter((c) => c.state !== "deleted")
        .map((c) => c.name)
        .sort();
    expect(await names()).toEqual(["app-pr-5", "app-pr-6"]);
    // The previews were just made: the sweep's hour of grace keeps them; the open list is what gh answers.
    const sweep = await runStep(stepOf(job("sweep"), "Preview sweep"), p, { ...env, OPEN_PRS: "6" });
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stdout).toContain("nothing to remove");
    expect(readFileSync(sweep.ghLog, "utf8")).toContain("pr list --state open");
  });
});

describe("examples/ci/preview.gitlab-ci.yml", () => {
  test("merge requests → up, the environment's on_stop → down (manual, from the default branch), schedules → sweep", () => {
    const up = gitlab.preview as GitLabJob;
    const down = gitlab["preview-down"] as GitLabJob;
    const sweep = gitlab["preview-sweep"] as GitLabJob;
    expect(up.rules?.[0]?.if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(up.environment).toMatchObject({ name: "preview/pr-$CI_MERGE_REQUEST_IID", on_stop: "preview-down" });
    expect(down.environment).toEqual({ name: up.environment?.name, action: "stop" });
    expect(down.rules?.[0]?.when).toBe("manual");
    expect(down.variables?.GIT_STRATEGY).toBe("none");
    expect(down.before_script?.join("\n")).toContain('--branch "$CI_DEFAULT_BRANCH"');
    expect(sweep.rules?.[0]?.if).toBe('$CI_PIPELINE_SOURCE == "schedule"');
    expect(up.script?.join("\n")).toContain('npx --no-install cubeform preview up --id "pr-$CI_MERGE_REQUEST_IID"');
    expect(down.script?.join("\n")).toContain('npx --no-install cubeform preview down --id "pr-$CI_MERGE_REQUEST_IID"');
    expect(sweep.script?.join("\n")).toContain('npx --no-install cubeform preview sweep --keep "$open"');
  });
});
