/**
 * Issue 35 item 2: `apply --repo --status-provider gitlab` in CI posts on a fake GitLab (test/support/fake-forge.ts;
 * `POST /api/v4/projects/:id/statuses/:sha` with `PRIVATE-TOKEN`, states pending|running|success|failed|canceled, `name` the
 * context): pending then success for a commit applied; failed (with FILE:LINE:COL) for a commit that does not load, under
 * the space's context although the file never loaded; failed for an apply refused over the budget. Every status is sent
 * before apply exits. The token comes from --status-token-file and shows nowhere, though the forge echoes it in two 502 answers (retried).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { startFakeForge } from "../support/fake-forge.js";
import { APPLY, describeRun, plainFleet, project, tempDir } from "./support.js";

const TOKEN = "glpat-statusTokenForTests987";

test("apply --repo posts pending and success, failed for a broken commit and for a refused apply; the token never shows", {
  timeout: 180_000,
}, async () => {
  const repo = testRepo();
  const p = await project();
  const forge = await startFakeForge("gitlab", TOKEN);
  const tokenFile = join(tempDir(), "gitlab.token");
  writeFileSync(tokenFile, `${TOKEN}\n`);
  const apply = (): Promise<ReturnType<typeof p.run> extends Promise<infer T> ? T : never> =>
    p.run(
      [
        ...APPLY,
        "--repo",
        repo.url,
        "--status-provider",
        "gitlab",
        "--status-url",
        forge.url,
        "--status-repo",
        "acme/infra/fleet",
        "--status-token-file",
        tokenFile,
      ],
      repo.env,
    );
  const context = `cubeform/${p.emu.spaceId}`;

  const c1 = repo.commit({ "cubeform.yaml": plainFleet("web") });
  const good = await apply();
  expect(good.code, describeRun(good)).toBe(0);

  const c2 = repo.commit({ "cubeform.yaml": plainFleet("web", "db").replace("vcpu: 1", "vcpu: lots") });
  const broken = await apply();
  expect(broken.code, describeRun(broken)).toBe(1);

  const c3 = repo.commit({
    "cubeform.yaml": plainFleet("web", "db").replace("apiVersion: cubeform/v1\n", "apiVersion: cubeform/v1\nbudget:\n  monthly: 0.01\n"),
  });
  forge.fail(502, { echoToken: true, retryAfter: "0", times: 2 });
  const refused = await apply();
  expect(refused.code, describeRun(refused)).toBe(1);

  expect(forge.accepted.map((s) => [s.sha, s.state])).toEqual([
    [c1, "pending"],
    [c1, "success"],
    [c2, "failed"],
    [c3, "pending"],
    [c3, "failed"],
  ]);
  expect(forge.accepted.every((s) => s.context === context && s.repository === "acme/infra/fleet")).toBe(true);
  expect(forge.accepted[2]!.description).toMatch(/^does not load: cubeform\.yaml at commit [0-9a-f]{12} is not valid/);
  expect(forge.accepted[4]!.description).toMatch(/^failed: refusing to apply: .*budget/);
  expect(forge.requests.every((r) => r.headers["private-token"] === TOKEN && r.method === "POST")).toBe(true);
  expect(refused.stderr).toContain("gitlab answered 502: upstream failed for request with token [REDACTED]");
  for (const run of [good, broken, refused]) expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
});
