/**
 * `plan --repo` keeps a large file's load on disk as `-f` does (issue 33): a later run at a commit whose file is unchanged reads
 * the entry instead of parsing again; an entry whose referenced file a later commit links out of the checkout is not used.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { LoadError } from "../../desired/errors.js";
import { GitSource, RepoLoader } from "../../desired/git.js";
import { DiskLoadCache, loadFleet } from "../../desired/index.js";
import { MIN_CACHED_BYTES } from "../../desired/load-cache.js";
import { testRepo, type TestRepo } from "../support/git.js";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp t@example";

/** A fleet over the disk cache's minimum size; its key is read from a file the fleet names. */
function largeFleet(): string {
  const cubes = Array.from({ length: Math.ceil(MIN_CACHED_BYTES / 30) }, (_, i) => `  - name: cube-${i}\n    power: running\n`).join("");
  return `apiVersion: cubeform/v1\ndefaults:\n  image: ubuntu-24.04\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  sshPublicKeyFile: keys/id.pub\ncubes:\n${cubes}`;
}

/** A new loader each time: what a new run of `cubeform plan --repo` has. */
function loader(repo: TestRepo): RepoLoader {
  return new RepoLoader({
    source: new GitSource({ url: repo.url, cwd: repo.work, env: repo.env, timeoutMs: 20_000 }),
    path: "cubeform.yaml",
    env: repo.env,
  });
}

test("a second run at an unchanged file uses the kept load; a key file linked out of the checkout by a later commit is not read through it", {
  timeout: 120_000,
}, async () => {
  const repo = testRepo();
  repo.commit({ "cubeform.yaml": largeFleet(), "keys/id.pub": `${KEY}\n` });
  const said: string[] = [];
  const cache = new DiskLoadCache(join(mkdtempSync(join(tmpdir(), "cubeform-repo-cache-")), "load-cache"), "test-build", (line) =>
    said.push(line),
  );
  const first = await loadFleet({ repo: loader(repo), diskCache: cache });
  expect(said.join("\n")).toContain("kept cubeform.yaml");
  said.length = 0;
  const again = await loadFleet({ repo: loader(repo), diskCache: cache });
  expect(said.join("\n")).toContain("used for cubeform.yaml");
  expect(again.desired).toStrictEqual(first.desired);

  // The same fleet text, but its key file now a link out of the checkout: the entry is not used, and the load refuses the link.
  const outside = join(mkdtempSync(join(tmpdir(), "cubeform-outside-")), "id.pub");
  writeFileSync(outside, `${KEY}\n`);
  repo.symlink("keys/id.pub", outside);
  repo.commit({});
  said.length = 0;
  const refused = await loadFleet({ repo: loader(repo), diskCache: cache }).catch((e: unknown) => e);
  expect(said.join("\n")).toContain("not used for cubeform.yaml: the referenced files changed");
  expect(refused).toBeInstanceOf(LoadError);
});
