/** The --repo flags taken out of a command's options; the git machinery (repo-loader.ts) loads only with --repo (~8 ms of a validate). */
import type { RepoLoader } from "../../desired/index.js";
import { checkRepoFlags, type RepoOptions } from "../arguments/options.js";
import type { SessionOptions } from "../arguments/connect.js";
import { cwdOf, type CliIo } from "../io.js";
import { parseRateLimit } from "./rate-limit.js";

const REPO_KEYS = [
  "repo",
  "ref",
  "path",
  "secretsDir",
  "gitTokenEnv",
  "gitTokenFile",
  "gitUsername",
  "sshKey",
  "sshKnownHosts",
  "allowedSigners",
  "gitTimeout",
] as const;

/** A command's parsed options split into the repository source (when --repo) and the rest. */
export async function takeRepo<T extends RepoOptions>(
  parsed: T,
  rawFiles: unknown,
  cwd: string,
  io: CliIo,
): Promise<{ repo?: RepoLoader; rest: Omit<T, (typeof REPO_KEYS)[number]> }> {
  checkRepoFlags(parsed, rawFiles);
  const rest: Record<string, unknown> = { ...parsed };
  for (const key of REPO_KEYS) delete rest[key];
  const repo = parsed.repo === undefined ? undefined : (await import("./repo-loader.js")).repoLoaderOf(parsed, cwd, io);
  return { ...(repo !== undefined ? { repo } : {}), rest: rest as Omit<T, (typeof REPO_KEYS)[number]> };
}

/** The options plan, drift, apply and watch share (SessionOptions), made into the fields of their context. */
export async function sessionContext<T extends SessionOptions>(parsed: T, raw: unknown, io: CliIo) {
  const { file, target, rateLimit, ...options } = parsed;
  const { repo, rest } = await takeRepo(
    options as Omit<T, "file" | "target" | "rateLimit"> & RepoOptions,
    (raw as { file?: unknown }).file,
    cwdOf(io),
    io,
  );
  return { ...rest, files: file, targets: target, rateLimit: parseRateLimit(rateLimit), cwd: cwdOf(io), ...(repo ? { repo } : {}) };
}
