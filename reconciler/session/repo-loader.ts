/** The --repo flags made into a RepoLoader: credentials read from the environment or a file, never from argv. */
import { resolve } from "node:path";
import { GitSource, type GitCredentials } from "../../desired/git.js";
import { RepoLoader } from "../../desired/git.js";
import type { RepoOptions } from "../arguments/options.js";
import { CliError } from "../errors.js";
import { inCliWords } from "../hints.js";
import type { CliIo } from "../io.js";
import { parseDuration } from "../../system/time.js";
import { checkRegularFile, FileReadError, readRegularText, type ReadLimit } from "../../system/files.js";

/** A token file is a line, not a document. */
const TOKEN_FILE: ReadLimit = { maxBytes: 16 * 1024, what: "a token file (one token)" };

/**
 * The files git is given, checked when the command starts: git reads a missing allowed-signers file as "not signed", and ssh a
 * missing key or known_hosts file as a refused host, rounds later.
 */
const GIT_FLAG_FILES = [
  ["allowedSigners", "--allowed-signers", { maxBytes: 1024 * 1024, what: "an allowed-signers file" }],
  ["sshKey", "--ssh-key", { maxBytes: 64 * 1024, what: "an SSH private key" }],
  ["sshKnownHosts", "--ssh-known-hosts", { maxBytes: 16 * 1024 * 1024, what: "a known_hosts file" }],
] as const satisfies readonly (readonly [keyof RepoOptions, string, ReadLimit])[];

function checkGitFlagFiles(options: RepoOptions, cwd: string): void {
  for (const [key, flag, limit] of GIT_FLAG_FILES) {
    const given = options[key];
    if (given === undefined) continue;
    try {
      checkRegularFile(resolve(cwd, given), limit);
    } catch (e) {
      if (e instanceof FileReadError) throw new CliError("invalid_option", `${flag} ${given}: ${e.reason}`);
      throw e;
    }
  }
}

export function repoLoaderOf(options: RepoOptions, cwd: string, io: CliIo): RepoLoader | undefined {
  if (options.repo === undefined) return undefined;
  try {
    return newRepoLoader({ ...options, repo: options.repo }, cwd, io);
  } catch (e) {
    throw inCliWords(e);
  }
}

function newRepoLoader(options: RepoOptions & { repo: string }, cwd: string, io: CliIo): RepoLoader {
  checkGitFlagFiles(options, cwd);
  const source = new GitSource({
    url: options.repo,
    ...(options.ref !== undefined ? { ref: options.ref } : {}),
    cwd,
    env: io.env,
    credentials: () => credentialsOf(options, cwd, io.env),
    timeoutMs: parseDuration(options.gitTimeout, "--git-timeout"),
    ...(options.allowedSigners !== undefined ? { allowedSignersFile: resolve(cwd, options.allowedSigners) } : {}),
  });
  return new RepoLoader({
    source,
    path: options.path,
    env: io.env,
    ...(options.secretsDir !== undefined ? { secretsDir: resolve(cwd, options.secretsDir) } : {}),
  });
}

function credentialsOf(options: RepoOptions, cwd: string, env: Record<string, string | undefined>): GitCredentials {
  const credentials: GitCredentials = { username: options.gitUsername };
  const token =
    options.gitTokenEnv !== undefined
      ? tokenFromEnv(options.gitTokenEnv, env)
      : options.gitTokenFile !== undefined
        ? readTokenFile(resolve(cwd, options.gitTokenFile))
        : undefined;
  if (token !== undefined) credentials.token = token;
  if (options.sshKey !== undefined) credentials.sshKeyFile = resolve(cwd, options.sshKey);
  if (options.sshKnownHosts !== undefined) credentials.knownHostsFile = resolve(cwd, options.sshKnownHosts);
  return credentials;
}

function tokenFromEnv(name: string, env: Record<string, string | undefined>): string {
  const value = env[name]?.trim();
  if (!value) throw new CliError("missing_secret", `--git-token-env ${name}: the variable is not set`, 1, true);
  return value;
}

function readTokenFile(path: string): string {
  let token: string;
  try {
    token = readRegularText(path, TOKEN_FILE).trim();
  } catch (e) {
    throw new CliError(
      "missing_secret",
      `--git-token-file ${path}: ${e instanceof FileReadError ? e.reason : (e as Error).message}`,
      1,
      true,
    );
  }
  if (token === "") throw new CliError("missing_secret", `--git-token-file ${path}: the file is empty`, 1, true);
  return token;
}
