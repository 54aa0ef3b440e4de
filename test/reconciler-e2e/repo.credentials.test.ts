/**
 * An https repository with a token (issue 21): served by `git http-backend` behind basic auth on
 * 127.0.0.1. The token reaches the server, and never the output, the argv of any process running
 * while git talks to the server, or the cached clone's .git/config.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { serveGitHttp } from "../support/git-http.js";
import { describeRun, plainFleet, startBin, tempDir } from "./support.js";

const TOKEN = "glpat-TOKENabcdef0123456789";

test("a token from --git-token-env or --git-token-file reaches git-http-backend; it is never in output, argv or the clone's config", {
  timeout: 90_000,
}, async () => {
  const repo = testRepo();
  const commit = repo.commit({ "cubeform.yaml": plainFleet("web") });
  const server = await serveGitHttp(repo.bare, "oauth2", TOKEN, repo.env);
  const cwd = tempDir();
  const validate = (extra: string[], env: Record<string, string> = {}) =>
    startBin(["validate", "--repo", server.url, "--git-username", "oauth2", ...extra], { cwd, env: { ...repo.env, ...env } }).exited;

  const fromEnv = await validate(["--git-token-env", "FLEET_TOKEN"], { FLEET_TOKEN: TOKEN });
  expect(fromEnv.code, describeRun(fromEnv)).toBe(0);
  expect(fromEnv.stdout).toContain(`at commit ${commit}`);
  writeFileSync(join(cwd, "token"), `${TOKEN}\n`);
  const fromFile = await validate(["--git-token-file", "token"]);
  expect(fromFile.code, describeRun(fromFile)).toBe(0);
  expect(server.authorizations).toContain(`Basic ${Buffer.from(`oauth2:${TOKEN}`).toString("base64")}`);

  const without = await validate([]);
  expect(without.code).toBe(1);
  expect(without.stderr).toMatch(/git fetch of http:\/\/127\.0\.0\.1:\d+\/remote\.git \(HEAD \(the remote's default branch\)\) failed/);
  const wrong = await validate(["--git-token-env", "FLEET_TOKEN"], { FLEET_TOKEN: "wrong" });
  expect(wrong.code).toBe(1);

  const basic = Buffer.from(`oauth2:${TOKEN}`).toString("base64");
  for (const run of [fromEnv, fromFile, without, wrong]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
  expect(server.commandLines.some((line) => line.includes("remote-http"))).toBe(true);
  expect(server.commandLines.filter((line) => line.includes(TOKEN) || line.includes(basic))).toEqual([]);
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  for (const clone of readdirSync(clones)) {
    const config = readFileSync(join(clones, clone, ".git", "config"), "utf8");
    expect(config).not.toContain(TOKEN);
    expect(config).not.toContain(basic);
  }
});
