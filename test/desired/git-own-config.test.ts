/**
 * Issue 32 item 7: git runs with cubeform's own configuration and environment. The operator's global config (a smudge filter,
 * a hooks directory, submodule recursion, a credential helper, an insteadOf), GIT_TRACE*, GIT_CONFIG_* variables and HOME
 * reach none of the git processes of a load: the fleet loaded is the commit's, byte for byte, and nothing the operator's
 * configuration names ran.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";
import { GitSource } from "../../desired/git-source.js";
import { RepoLoader } from "../../desired/repo-load.js";
import { testRepo } from "../support/git.js";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp t@example";
const fleet = (...names: string[]): string =>
  `apiVersion: cubeform/v1\ndefaults:\n  image: ubuntu-24.04\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  sshPublicKey: ${KEY}\ncubes:\n${names.map((n) => `  - name: ${n}\n`).join("")}`;

test("issue 32 item 7: the operator's git config, hooks, filters, traces and GIT_CONFIG_* variables do not reach cubeform's git", async () => {
  const repo = testRepo();
  // The repository asks for a filter on its YAML (as a .gitattributes may); the commit is made without it.
  const commit = repo.commit({ ".gitattributes": "*.yaml filter=rewrite\n", "cubeform.yaml": fleet("web") });
  const root = dirname(repo.work);
  const marks = join(root, "marks");
  mkdirSync(marks);
  const hooks = join(root, "operator-hooks");
  mkdirSync(hooks);
  for (const hook of ["post-checkout", "reference-transaction", "post-index-change"]) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\ntouch '${marks}/hook-${hook}'\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  const operatorHome = join(root, "operator-home");
  mkdirSync(join(operatorHome, ".config", "git"), { recursive: true });
  const config = [
    `[filter "rewrite"]`,
    `\tsmudge = sh -c 'touch ${marks}/smudge; sed s/web/evil/'`,
    `\tclean = cat`,
    `\trequired = true`,
    `[core]`,
    `\thooksPath = ${hooks}`,
    `[submodule]`,
    `\trecurse = true`,
    `[credential]`,
    `\thelper = !touch ${marks}/credential-helper`,
    `[url "file:///nowhere/"]`,
    `\tinsteadOf = ${repo.url.replace(/remote\.git$/, "")}`,
  ].join("\n");
  writeFileSync(join(operatorHome, ".gitconfig"), `${config}\n`);
  writeFileSync(join(operatorHome, ".config", "git", "config"), `${config}\n`);
  const trace = join(root, "trace");
  const env = {
    ...repo.env,
    HOME: operatorHome,
    XDG_CONFIG_HOME: join(operatorHome, ".config"),
    GIT_TRACE: trace,
    GIT_TRACE_CURL: trace,
    GIT_TRACE_PACKET: trace,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.hooksPath",
    GIT_CONFIG_VALUE_0: hooks,
    GIT_CONFIG_PARAMETERS: `'core.hookspath'='${hooks}'`,
    GIT_EXEC_PATH: join(root, "nowhere"),
    GNUPGHOME: join(root, "gnupg"),
  };
  const loader = new RepoLoader({
    source: new GitSource({ url: repo.url, cwd: repo.work, env, timeoutMs: 20_000 }),
    path: "cubeform.yaml",
    env,
  });
  const loaded = await loader.load();
  expect(loaded.revision.revision).toBe(commit);
  expect(loaded.desired.cubes.map((c) => c.name)).toEqual(["web"]);
  expect(readdirSync(marks)).toEqual([]);
  expect(existsSync(trace)).toBe(false);
  // The clone's HOME is cubeform's: an empty directory beside the clones.
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  const clone = readdirSync(clones).find((name) => !name.endsWith(".lock")) as string;
  expect(readFileSync(join(clones, clone, "cubeform.yaml"), "utf8")).toBe(fleet("web"));
  expect(readdirSync(`${clones}-home`)).toEqual([]);
  expect(existsSync(join(clones, clone, ".git", "hooks"))).toBe(false);
});
