/**
 * A git repository as the desired-state source: the system `git`, spawned with an argv array (never a shell), fetches one ref
 * shallowly into the user's cache and checks out its commit; later rounds ask `git ls-remote` and fetch only when the ref moved.
 * The clone is shared by every cubeform of the user (two terminals, a watch): it changes only under a lock.
 *
 * The system git, not a library: the machine's ssh, proxies and CA certificates are set up for it (as Argo CD does). But git
 * runs with a configuration of cubeform's own: no system or global config, a private HOME, none of the operator's GIT_*
 * variables (traces, hooks, filters, credential helpers, submodule recursion and gpg keyrings cannot reach it), and the
 * transports allowed named explicitly. Credentials never reach argv or the clone's .git/config: an https token travels as an
 * `http.<origin>/.extraHeader` in the git process's GIT_CONFIG_* variables, ssh's key and known-hosts files through
 * GIT_SSH_COMMAND (host keys checked). A commit is verified (when allowed signers are given) before its files are written.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readlinkSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { userDir } from "../system/dirs.js";
import { tryOr } from "../system/files.js";
import { acquireLock, LockTimeout } from "../system/lock.js";
import { GitSourceError, UntrustedCommitError, type InputNames, type Wording } from "./errors.js";

export interface GitCredentials {
  /** An https token (from an environment variable or a file: the caller reads it). */
  token?: string;
  /** The user name sent with the token (GitHub: x-access-token, GitLab: oauth2; most forges ignore it). */
  username?: string;
  sshKeyFile?: string;
  knownHostsFile?: string;
}

export interface GitSourceOptions {
  /** https, ssh (ssh://… or user@host:path), file://, or a local path (relative to cwd). */
  url: string;
  /** A branch, tag or commit; undefined: the remote's default branch (its HEAD). */
  ref?: string;
  cwd: string;
  /** The operator's environment: git is given only PATH, proxies, CA certificates and the ssh agent of it (see gitEnv). */
  env: Record<string, string | undefined>;
  /** Read before each git command: a token file that a Secret mount rotates is picked up. */
  credentials?: () => GitCredentials;
  /** A git command that takes longer is killed and the round fails. */
  timeoutMs: number;
  /** Where clones are kept; default $XDG_CACHE_HOME/cubeform/git (else ~/.cache/cubeform/git). */
  cacheDir?: string;
  /** git's gpg.ssh.allowedSignersFile: then only a commit with an SSH signature by one of its keys loads. */
  allowedSignersFile?: string;
}

/** The files of one commit on disk. */
export interface Checkout {
  /** The full commit id. */
  commit: string;
  /** The checkout's real path (after symlinks): every file the fleet names must resolve inside it. */
  dir: string;
  /** Whether this commit was already checked out by the previous sync of this source. */
  unchanged: boolean;
  /** Lets other processes change the clone again: call it once the files are read. */
  release(): Promise<void>;
}

/**
 * The operator's variables git is given: how to reach the server (proxies, CA certificates, the ssh agent) and where programs
 * are. Everything else (HOME, GNUPGHOME, XDG_*, GIT_TRACE*, GIT_CONFIG_*, GIT_SSH*, GIT_ASKPASS, GIT_EXEC_PATH, ...) stays out.
 */
const PASSED_VARIABLES =
  /^(PATH|TMPDIR|SSH_AUTH_SOCK|SSL_CERT_FILE|SSL_CERT_DIR|CURL_CA_BUNDLE|GIT_SSL_CAINFO|GIT_SSL_CAPATH|SYSTEMROOT|(https?|all|no)_proxy|(HTTPS?|ALL|NO)_PROXY)$/;

/**
 * The configuration every git command runs with (no system or global file is read): only the transports cubeform accepts,
 * no hooks, no credential helpers, no submodules, no background maintenance, no redirects (a redirect can carry the token away).
 */
const OWN_CONFIG: readonly [string, string][] = [
  ["protocol.allow", "never"],
  ...["https", "http", "ssh", "file"].map((name): [string, string] => [`protocol.${name}.allow`, "always"]),
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["credential.helper", ""],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["http.followRedirects", "false"],
];

/** The signature programs git would run for OpenPGP and X.509 (the operator's keyring): a program that always fails. */
const NO_GPG: readonly string[] = ["-c", "gpg.program=false", "-c", "gpg.openpgp.program=false", "-c", "gpg.x509.program=false"];

/** The lock files a git process leaves in .git when it is killed (e.g. at --git-timeout in the middle of a fetch). */
const GIT_LOCK_FILES = /^(shallow|index|HEAD|FETCH_HEAD|ORIG_HEAD|config|packed-refs)\.lock$/;

export class GitSource {
  readonly url: string;
  readonly ref: string | undefined;
  private readonly dir: string;
  private lastCommit: string | undefined;
  /** `git ls-remote` of the ref before the last fetch: the same answer means the same commit. */
  private lastHeads: string | undefined;
  /** The ls-remote answer whose commit was refused, and why: the same answer is refused again without fetching. */
  private refused: { heads: string; error: UntrustedCommitError } | undefined;
  /** The HOME git runs with: an empty directory of cubeform's, not the operator's. */
  private readonly home: string;

  constructor(private readonly options: GitSourceOptions) {
    this.url = normalizeUrl(options.url, options.cwd);
    this.ref = options.ref;
    if (options.ref !== undefined) checkRef(options.ref);
    const clones = options.cacheDir ?? join(userDir(options.env, "cache"), "git");
    this.dir = join(clones, createHash("sha256").update(this.url).digest("hex").slice(0, 24));
    this.home = `${clones}-home`;
  }

  /** The ref as shown to people: the one asked for, else the remote's default branch. */
  get refLabel(): string {
    return this.ref ?? "HEAD (the remote's default branch)";
  }

  /**
   * The ref's commit, checked out. A steady round is one `git ls-remote` (under half a fetch's CPU). When the ref moved, the clone
   * is locked until release(): fetched, checked out (always: another process may have checked out another ref) and kept small.
   * The first sync fetches without asking (a one-shot command syncs once); the second records the answer to compare with.
   */
  async sync(): Promise<Checkout> {
    const known =
      (this.lastCommit !== undefined || this.refused !== undefined) && existsSync(join(this.dir, ".git"))
        ? await this.remoteHeads()
        : undefined;
    if (known !== undefined && known === this.refused?.heads) throw this.refused.error;
    if (known !== undefined && known === this.lastHeads)
      return { commit: this.lastCommit as string, dir: realpathSync(this.dir), unchanged: true, release: async () => {} };
    const lock = await this.lock();
    try {
      if (!existsSync(join(this.dir, ".git"))) await this.git(["init", "--quiet", "--template="], "init");
      else removeStaleLocks(this.dir);
      // git's own automatic gc would detach into the background, outside the lock: compact() does it.
      await this.git(
        [
          "fetch",
          "--quiet",
          "--no-auto-maintenance",
          "--depth",
          "1",
          "--no-tags",
          "--no-recurse-submodules",
          "--",
          this.url,
          this.ref ?? "HEAD",
        ],
        "fetch",
      );
      const commit = (await this.git(["rev-parse", "--verify", "--end-of-options", "FETCH_HEAD^{commit}"], "rev-parse")).trim();
      // Before checkout: no file of a refused commit is written.
      await this.verify(commit);
      await this.git(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", commit], "checkout");
      await this.git(["clean", "--quiet", "-ffdx"], "clean");
      await this.compact();
      const unchanged = commit === this.lastCommit;
      [this.lastCommit, this.lastHeads, this.refused] = [commit, known, undefined];
      return { commit, dir: realpathSync(this.dir), unchanged, release: lock.release };
    } catch (e) {
      await lock.release();
      if (e instanceof UntrustedCommitError && known !== undefined) this.refused = { heads: known, error: e };
      throw e;
    }
  }

  /**
   * Refuses a commit without an SSH signature by a key of the allowed-signers file (when one is given). git verify-commit
   * would check an OpenPGP or X.509 signature against the operator's keyring instead: only the SSH format is accepted, and
   * the gpg programs are replaced by one that fails.
   */
  private async verify(commit: string): Promise<void> {
    const file = this.options.allowedSignersFile;
    if (file === undefined) return;
    const refuse = (why: string): UntrustedCommitError => new UntrustedCommitError(commit, file, why);
    const format = signatureFormat(await this.git(["cat-file", "commit", commit], "cat-file"));
    if (format === undefined) throw refuse("it is not signed");
    if (format !== "ssh") throw refuse(`it is signed with ${format}, and only an SSH signature by a key in that file is accepted`);
    // -c, not the clone's config: the clone is shared, and its config is never written.
    const args = [...NO_GPG, "-c", "gpg.format=ssh", "-c", `gpg.ssh.allowedSignersFile=${file}`, "verify-commit", "--", commit];
    const result = await runGit(gitArgv(this.dir, args), gitEnv(this.options.env, this.url, undefined, this.home), this.options.timeoutMs);
    if (result.ok) return;
    throw refuse(
      result.timedOut
        ? "verify-commit timed out"
        : /^exit \d+$/.test(result.stderr)
          ? "it is not signed"
          : `it is not signed by a key in that file (${result.stderr})`,
    );
  }

  private async remoteHeads(): Promise<string> {
    return this.git(["ls-remote", "--", this.url, this.ref ?? "HEAD"], "ls-remote");
  }

  private async lock(): Promise<{ release(): Promise<void> }> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    mkdirSync(this.home, { recursive: true, mode: 0o700 });
    const about = { command: `git fetch of ${this.url}` };
    return acquireLock(`${this.dir}.lock`, { timeoutMs: this.options.timeoutMs, about }).catch((e: unknown) => {
      if (!(e instanceof LockTimeout)) throw e;
      const waited = Math.round(this.options.timeoutMs / 1000);
      throw new GitSourceError(
        (n) =>
          `the cached clone of ${this.url} is in use by another cubeform: ${e.message} (waited ${waited} s${n.gitTimeout ? `, ${n.gitTimeout}` : ""})`,
      );
    });
  }

  /**
   * Each shallow fetch of a moved ref adds objects and the reflog keeps the old ones: once they outgrow twice the checkout (plus
   * 256 KiB, so a small repository is not packed every round), they are collected down to the checked-out commit.
   */
  private async compact(): Promise<void> {
    const [files, objects] = cloneBytes(this.dir);
    if (objects <= 2 * files + 2 ** 18) return;
    await this.git(["-c", "gc.reflogExpire=now", "-c", "gc.reflogExpireUnreachable=now", "gc", "--quiet", "--prune=now"], "gc");
  }

  private async git(args: string[], step: string): Promise<string> {
    const credentials = this.options.credentials?.();
    const result = await runGit(
      gitArgv(this.dir, args),
      gitEnv(this.options.env, this.url, credentials, this.home),
      this.options.timeoutMs,
    );
    if (result.ok) return result.stdout;
    const failed = `git ${step} of ${this.url} (${this.refLabel}) failed: `;
    if (!result.timedOut) throw new GitSourceError(() => `${failed}${redact(result.stderr, credentials)}`);
    const after = Math.round(this.options.timeoutMs / 1000);
    throw new GitSourceError((n) => `${failed}timed out after ${after} s${n.gitTimeout ? ` (${n.gitTimeout})` : ""}`);
  }
}

/** The format of a raw commit object's signature (its gpgsig header, as git reads it), or undefined when it has none. */
export function signatureFormat(rawCommit: string): "ssh" | "OpenPGP" | "X.509" | "an unknown format" | undefined {
  const headers = rawCommit.slice(0, (rawCommit.indexOf("\n\n") + 1 || rawCommit.length + 1) - 1).split("\n");
  const at = headers.findIndex((line) => /^gpgsig(-sha256)? /.test(line));
  if (at < 0) return undefined;
  const first = headers[at]!.slice(headers[at]!.indexOf(" ") + 1);
  if (first === "-----BEGIN SSH SIGNATURE-----") return "ssh";
  if (first === "-----BEGIN PGP SIGNATURE-----") return "OpenPGP";
  if (first === "-----BEGIN SIGNED MESSAGE-----") return "X.509";
  return "an unknown format";
}

/**
 * A git killed in the middle of a fetch (at --git-timeout, or with its cubeform) leaves lock files, and every later git on
 * the clone fails on them. Called under the clone's lock, so no other cubeform's git is running on it; a git left running
 * by a killed cubeform is looked for (its working directory is the clone) before they are removed.
 */
function removeStaleLocks(dir: string): void {
  const gitDir = join(dir, ".git");
  const locks = tryOr(() => readdirSync(gitDir), [] as string[])
    .filter((name) => GIT_LOCK_FILES.test(name))
    .map((name) => join(gitDir, name));
  const refLocks = tryOr(() => readdirSync(join(gitDir, "refs"), { recursive: true, encoding: "utf8" }), [] as string[]).filter((name) =>
    name.endsWith(".lock"),
  );
  locks.push(...refLocks.map((name) => join(gitDir, "refs", name)));
  if (locks.length === 0 || gitRunningIn(dir)) return;
  for (const lock of locks) tryOr(() => unlinkSync(lock), undefined); // already gone
}

/** Whether a process of this user runs in `dir` (read from /proc; where there is none, a lock is never taken away). */
function gitRunningIn(dir: string): boolean {
  const pids = tryOr(() => readdirSync("/proc").filter((name) => /^\d+$/.test(name)), undefined);
  if (pids === undefined) return true;
  const real = tryOr(() => realpathSync(dir), dir);
  return pids.some((pid) => {
    const cwd = tryOr(() => readlinkSync(`/proc/${pid}/cwd`), undefined);
    return cwd !== undefined && (cwd === real || cwd.startsWith(`${real}/`));
  });
}

/** [bytes of the checked-out files, bytes of .git/objects]. */
function cloneBytes(dir: string): [number, number] {
  const bytes: [number, number] = [0, 0];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name));
    const slot = path.startsWith(".git/objects/") ? 1 : path.startsWith(".git/") ? undefined : 0;
    if (slot !== undefined) bytes[slot] += statSync(join(dir, path)).size;
  }
  return bytes;
}

type GitResult = { ok: true; stdout: string } | { ok: false; timedOut: boolean; stderr: string };

/** One git command, in its own process group: a timeout kills its helpers too (git-remote-https, ssh), which would hold the connection. */
function runGit(argv: string[], env: Record<string, string>, timeoutMs: number): Promise<GitResult> {
  return new Promise((resolvePromise) => {
    const child = spawn("git", argv, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-8192)));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) tryOr(() => process.kill(-child.pid!, "SIGKILL"), undefined); // unless already gone
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolvePromise({ ok: false, timedOut: false, stderr: error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && !timedOut) resolvePromise({ ok: true, stdout });
      else resolvePromise({ ok: false, timedOut, stderr: lastLines(stderr) || `exit ${code}` });
    });
  });
}

/** The argv of one git command on the clone: never a credential (they travel in gitEnv). */
export function gitArgv(dir: string, args: readonly string[]): string[] {
  return ["-C", dir, ...args];
}

/** A git process's environment: PASSED_VARIABLES of the operator's, `home` as HOME, no prompts, OWN_CONFIG and the credentials. */
export function gitEnv(
  base: Record<string, string | undefined>,
  url: string,
  credentials: GitCredentials | undefined,
  home: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && PASSED_VARIABLES.test(name)) env[name] = value;
  Object.assign(env, {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    LC_ALL: "C",
  });
  const config: [string, string][] = [...OWN_CONFIG];
  if (credentials?.token !== undefined) {
    const basic = Buffer.from(`${credentials.username ?? "x-access-token"}:${credentials.token}`).toString("base64");
    // Scoped to the repository's origin: a header git would send elsewhere leaks the token.
    config.push([`http.${tryOr(() => new URL(url).origin, url)}/.extraHeader`, `Authorization: Basic ${basic}`]);
  }
  addConfig(env, config);
  env.GIT_SSH_COMMAND = sshCommand(credentials ?? {});
  return env;
}

/** Sets GIT_CONFIG_COUNT/KEY_n/VALUE_n. */
function addConfig(env: Record<string, string>, entries: readonly [string, string][]): void {
  let count = 0;
  for (const [key, value] of entries) {
    env[`GIT_CONFIG_KEY_${count}`] = key;
    env[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  env.GIT_CONFIG_COUNT = String(count);
}

/** GIT_SSH_COMMAND is run by a shell: every path is single-quoted. Always batch mode (no prompt) and host keys checked. */
function sshCommand(credentials: GitCredentials): string {
  const parts = ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"];
  if (credentials.sshKeyFile !== undefined) parts.push("-o", "IdentitiesOnly=yes", "-i", shellQuote(credentials.sshKeyFile));
  if (credentials.knownHostsFile !== undefined) parts.push("-o", shellQuote(`UserKnownHostsFile=${credentials.knownHostsFile}`));
  return parts.join(" ");
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A forge's token (GitHub, GitLab, Slack, AWS key ids) anywhere in a URL; a user name that is one is a credential too. */
const TOKEN_PREFIX = /(gh[pousr]_|github_pat_|glpat-|gldt-|glptt-|glrt-|xox[abpr]-|AKIA)[A-Za-z0-9_-]{8,}/;
/** A user name that is a secret rather than a name: a token's prefix, or 32+ characters mixing letters and digits. */
const looksLikeToken = (user: string): boolean =>
  TOKEN_PREFIX.test(user) || (/^[A-Za-z0-9_+/=.-]{32,}$/.test(user) && /\d/.test(user) && /[A-Za-z]/.test(user));

const NO_CREDENTIALS = (n: InputNames): string =>
  `${n.repo ? `${n.repo}: ` : ""}put no credentials in the URL, in any form (user:password@, a token as the user, a query string): they would show in the process list, the clone's config and messages${n.gitToken ? `; use ${n.gitToken}` : ""}`;
/** A repository URL refused as written: retrying cannot fix it. */
const refusedUrl = (wording: Wording): GitSourceError => new GitSourceError(wording, true);
const repoNamed = (n: InputNames, url: string): string => (n.repo ? `${n.repo} ${url}` : `the repository URL ${url}`);

/**
 * The URL as git is given it: a local path becomes file://; ssh's scp form stays. Refused: a credential in the URL in any form
 * (it would reach argv and the clone's config; the message never repeats the URL then), a query string or fragment, plain
 * http except to loopback, other transports (ext:: runs commands), a leading "-".
 */
export function normalizeUrl(url: string, cwd: string): string {
  if (TOKEN_PREFIX.test(url) || TOKEN_PREFIX.test(tryOr(() => decodeURIComponent(url), url))) throw refusedUrl(NO_CREDENTIALS);
  if (url === "" || url.startsWith("-")) throw refusedUrl((n) => `${repoNamed(n, JSON.stringify(url))} is not a repository URL`);
  if (/^[a-z][a-z0-9+.-]*::/i.test(url))
    throw refusedUrl(
      (n) => `${repoNamed(n, url)}: git's "transport::address" form is not accepted; use https://, ssh://, file:// or a path`,
    );
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    const scpUser = /^([^/]+)@[^/:@]+:/.exec(url)?.[1];
    if (scpUser === undefined) return pathToFileURL(isAbsolute(url) ? url : resolve(cwd, url)).href;
    if (/[:@]/.test(scpUser) || looksLikeToken(scpUser)) throw refusedUrl(NO_CREDENTIALS);
    return url;
  }
  const parsed = tryOr(() => new URL(url), undefined);
  if (parsed === undefined) throw refusedUrl((n) => `${n.repo ? `${n.repo}: ` : ""}the ${scheme}:// URL given is not a valid URL`);
  const user = tryOr(() => decodeURIComponent(parsed.username), parsed.username);
  if (
    parsed.password !== "" ||
    ((scheme === "https" || scheme === "http") && user !== "") ||
    looksLikeToken(user) ||
    parsed.search !== "" ||
    url.includes("?")
  ) {
    throw refusedUrl(NO_CREDENTIALS);
  }
  if (parsed.hash !== "" || url.includes("#"))
    throw refusedUrl((n) => `${n.repo ? `${n.repo}: ` : ""}a repository URL has no "#" fragment`);
  if (scheme === "http" && !["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname))
    throw refusedUrl((n) => `${repoNamed(n, url)}: plain http is refused except to loopback; use https`);
  if (!["https", "http", "ssh", "file"].includes(scheme))
    throw refusedUrl((n) => `${repoNamed(n, url)}: only https://, ssh://, file:// URLs and local paths are accepted`);
  return url;
}

function checkRef(ref: string): void {
  if (ref === "" || ref.startsWith("-") || /[\s\0~^:?*[\\]|\.\.|@\{/.test(ref))
    throw refusedUrl((n) => `${n.ref ? `${n.ref} ` : "the ref "}${JSON.stringify(ref)} is not a branch, tag or commit name`);
}

/**
 * git's last words, in the order git said them, without its blank lines and the advice it prints after any transport failure;
 * its first "fatal:" or "error:" line (what failed) is kept when the explanation that follows is longer than the last lines.
 */
function lastLines(stderr: string): string {
  const advice =
    /^(fatal: Could not read from remote repository\.|Please make sure you have the correct access rights|and the repository exists\.)?$/;
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => !advice.test(line));
  const tail = Math.max(0, lines.length - 3);
  const cause = lines.findIndex((line) => /^(fatal|error):/.test(line));
  return (cause >= 0 && cause < tail ? [lines[cause] as string, ...lines.slice(Math.max(tail, cause + 1))] : lines.slice(tail)).join("; ");
}

function redact(text: string, credentials: GitCredentials | undefined): string {
  const token = credentials?.token;
  return token === undefined || token === "" ? text : text.split(token).join("***");
}
