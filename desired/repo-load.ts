/**
 * The desired state at a commit: sync the repository, check that the path is there (an absent one is an error, never an empty
 * fleet that would prune), then the usual loader, confined to the checkout. A commit already loaded is answered again.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { SourceRevision } from "../engine/types.js";
import { isInside, symlinkOut } from "./confine.js";
import { LoadError, RepoLoadError, SourceError, UntrustedCommitError } from "./errors.js";
import type { GitSource } from "./git-source.js";
import type { DiskLoadCache } from "./load-cache.js";
import { shortCommit } from "./short-commit.js";
import { loadDesiredFiles, type LoadedFiles } from "./sources.js";

export interface RepoLoadOptions {
  source: GitSource;
  /** A file or a directory of .yaml files inside the checkout. */
  path: string;
  secretsDir?: string;
  env: Record<string, string | undefined>;
}

export type RepoLoaded = LoadedFiles & { revision: SourceRevision };

export { shortCommit };

/** One load per commit: a watch round on an unchanged commit costs the fetch alone. */
export class RepoLoader {
  private last: { commit: string; result: RepoLoaded | Error } | undefined;

  constructor(readonly options: RepoLoadOptions) {
    checkPath(options.path);
  }

  /** The commit the last sync found (also when its load failed). */
  get lastCommit(): string | undefined {
    return this.last?.commit;
  }

  /** `diskCache`: a large file at a commit is not parsed again while its text (and what it names) is the same. */
  async load(diskCache?: DiskLoadCache): Promise<RepoLoaded> {
    const checkout = await this.options.source.sync().catch((e: unknown) => {
      if (e instanceof UntrustedCommitError) this.last = { commit: e.commit, result: e };
      throw e;
    });
    try {
      if (this.last?.commit !== checkout.commit || !checkout.unchanged)
        this.last = {
          commit: checkout.commit,
          result: await this.loadAt(checkout.dir, checkout.commit, diskCache).catch((e: unknown) =>
            e instanceof Error ? e : new Error(String(e)),
          ),
        };
    } finally {
      await checkout.release();
    }
    if (this.last.result instanceof Error) throw this.last.result;
    return this.last.result;
  }

  private async loadAt(dir: string, commit: string, diskCache: DiskLoadCache | undefined): Promise<RepoLoaded> {
    const { path, secretsDir, env, source } = this.options;
    const out = symlinkOut(dir, path);
    const at = `commit ${shortCommit(commit)}`;
    if (out !== undefined)
      throw new SourceError(
        "file_unreadable",
        (n) =>
          `${at}: ${out === path ? out : `${out} (of ${n.path ?? "the path"} ${path})`} is a symlink that leads outside the repository checkout, and is refused`,
      );
    if (!existsSync(join(dir, path)))
      throw new SourceError(
        "file_unreadable",
        (n) => `${at} has no ${path}${n.path ? ` (${n.path})` : ""}: nothing is applied and nothing pruned until a commit has it`,
      );
    const revision: SourceRevision = { repo: source.url, ref: source.ref ?? "HEAD", revision: commit, path };
    try {
      const loaded = await loadDesiredFiles({
        files: [path],
        cwd: dir,
        env,
        root: dir,
        secretsDir,
        ...(diskCache === undefined ? {} : { diskCache }),
      });
      return { ...loaded, revision };
    } catch (e) {
      if (e instanceof LoadError) throw new RepoLoadError(`${path} at commit ${shortCommit(commit)}`, e.problems, revision);
      if (e instanceof SourceError) throw new SourceError(e.code, (n) => `commit ${shortCommit(commit)}: ${e.wording(n)}`);
      throw e;
    }
  }
}

function checkPath(path: string): void {
  if (path === "" || isAbsolute(path) || !isInside("/checkout", join("/checkout", path)))
    throw new SourceError(
      "invalid_option",
      (n) => `${n.path ?? "the path"} ${JSON.stringify(path)}: name a file or directory inside the repository, relative to its root`,
    );
}
