/** What events say of the desired state's source: a repository (its url without credentials, ref, path) or the files. */
import { shownRepoUrl, type NotifySource } from "./event.js";

interface SourceOptions {
  files: readonly string[];
  repo?: { options: { source: { url: string; ref?: string }; path: string } };
}

export function notifySource(ctx: SourceOptions): NotifySource {
  if (ctx.repo === undefined) return { kind: "files", files: [...ctx.files] };
  const { source, path } = ctx.repo.options;
  return { kind: "git", repo: shownRepoUrl(source.url), ref: source.ref ?? "HEAD", path };
}
