/**
 * The --status-* flags made into where and how statuses are posted. The token comes from --status-token-file or
 * CUBEFORM_STATUS_TOKEN, never from argv; the repository and the API root are derived from --repo's URL when they can be.
 */
import { resolve } from "node:path";
import { isLoopbackHost } from "../../client/light.js";
import { CliError } from "../errors.js";
import { FileReadError, readRegularText, tryOr } from "../../system/files.js";
import { GITHUB_API, githubForge } from "./github.js";
import { giteaForge } from "./gitea.js";
import { gitlabForge } from "./gitlab.js";
import type { Forge } from "./types.js";

export const STATUS_PROVIDERS = ["github", "gitlab", "gitea"] as const;
export type StatusProvider = (typeof STATUS_PROVIDERS)[number];
export const TOKEN_VARIABLE = "CUBEFORM_STATUS_TOKEN";
export const DEFAULT_CONTEXT = "cubeform/{space}";

/** The flags as the command parsed them. */
export interface StatusFlags {
  statusProvider?: StatusProvider | undefined;
  statusUrl?: string | undefined;
  statusRepo?: string | undefined;
  statusContext?: string | undefined;
  statusTokenFile?: string | undefined;
  statusTargetUrl?: string | undefined;
}

export interface CommitStatusSettings {
  forge: Forge;
  /** Read when a status is sent (a rotated file is picked up). */
  token: () => string;
  /** The value to redact wherever it could show. */
  initialToken: string;
  context: string;
  targetUrl?: string;
}

/** undefined without --status-provider; any other --status-* flag then is a mistake. */
export function statusSettings(
  flags: StatusFlags,
  repoUrl: string | undefined,
  cwd: string,
  env: Record<string, string | undefined>,
): CommitStatusSettings | undefined {
  const provider = flags.statusProvider;
  if (provider === undefined) {
    const orphan = (["statusUrl", "statusRepo", "statusContext", "statusTokenFile", "statusTargetUrl"] as const).find(
      (key) => flags[key] !== undefined,
    );
    if (orphan !== undefined)
      throw new CliError("invalid_option", `--${orphan.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --status-provider`);
    return undefined;
  }
  if (repoUrl === undefined)
    throw new CliError(
      "invalid_option",
      "--status-provider needs --repo: a status is posted on the commit the desired state was loaded from",
    );
  const derived = fromRepoUrl(repoUrl);
  const repository = flags.statusRepo ?? derived?.path;
  if (repository === undefined)
    throw new CliError(
      "invalid_option",
      `--status-provider ${provider}: cannot tell the repository from ${repoUrl}; name it with --status-repo ${provider === "gitlab" ? "GROUP/PROJECT (or the project's id)" : "OWNER/NAME"}`,
    );
  if (provider !== "gitlab" && !/^[^/\s]+\/[^/\s]+$/.test(repository))
    throw new CliError("invalid_option", `--status-repo ${repository}: expected OWNER/NAME`);
  const apiUrl = checkedApiUrl(flags.statusUrl ?? defaultApiUrl(provider, derived?.host), provider, repoUrl);
  const tokenFile = flags.statusTokenFile === undefined ? undefined : resolve(cwd, flags.statusTokenFile);
  const token = (): string => (tokenFile !== undefined ? readTokenFile(tokenFile) : tokenFromEnv(env));
  const initialToken = token();
  let last = initialToken;
  return {
    forge: forgeOf(provider, apiUrl, repository),
    // A token file being rewritten is read again next time; meanwhile the last good token stands.
    token: () => {
      try {
        last = token();
      } catch {}
      return last;
    },
    initialToken,
    context: flags.statusContext ?? DEFAULT_CONTEXT,
    ...(flags.statusTargetUrl !== undefined ? { targetUrl: flags.statusTargetUrl } : {}),
  };
}

/** The context of a space: {space} in the template is replaced. */
export function contextOf(template: string, space: string | undefined): string {
  return template.replace(/\{space\}/g, space ?? "default");
}

function forgeOf(provider: StatusProvider, apiUrl: string, repository: string): Forge {
  if (provider === "github") return githubForge(apiUrl, repository);
  if (provider === "gitlab") return gitlabForge(apiUrl, repository);
  return giteaForge(apiUrl, repository);
}

function defaultApiUrl(provider: StatusProvider, host: string | undefined): string | undefined {
  if (provider === "github") return host === undefined || host === "github.com" ? GITHUB_API : `https://${host}/api/v3`;
  if (host === undefined) return provider === "gitlab" ? "https://gitlab.com/api/v4" : undefined;
  return `https://${host}/api/${provider === "gitlab" ? "v4" : "v1"}`;
}

function checkedApiUrl(url: string | undefined, provider: StatusProvider, repoUrl: string): string {
  if (url === undefined)
    throw new CliError(
      "invalid_option",
      `--status-provider ${provider}: cannot tell the forge's API from ${repoUrl}; name it with --status-url`,
    );
  if (!URL.canParse(url)) throw new CliError("invalid_option", `--status-url ${url}: not a URL`);
  const parsed = new URL(url);
  if (parsed.username !== "" || parsed.password !== "")
    throw new CliError("invalid_option", "--status-url: put no credentials in the URL; use --status-token-file or CUBEFORM_STATUS_TOKEN");
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopbackHost(parsed.hostname))) return url;
  throw new CliError(
    "invalid_option",
    `--status-url ${url}: use https (plain http only to this machine's loopback): the token travels with every status`,
  );
}

/** The host and repository path of a git URL (https://host/a/b.git, ssh://git@host/a/b.git, git@host:a/b.git); undefined for file:// and local paths. */
export function fromRepoUrl(url: string): { host: string; path: string } | undefined {
  const scp = /^[^@/\s]+@([^:/\s]+):(?!\/)(.+)$/.exec(url);
  let host: string;
  let path: string;
  if (scp) [host, path] = [scp[1]!, scp[2]!];
  else {
    const parsed = tryOr(() => new URL(url), undefined);
    if (parsed === undefined || !["https:", "http:", "ssh:", "git:"].includes(parsed.protocol) || parsed.hostname === "") return undefined;
    [host, path] = [parsed.hostname, decodeURIComponent(parsed.pathname)];
  }
  const trimmed = path.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  return trimmed.includes("/") ? { host, path: trimmed } : undefined;
}

function tokenFromEnv(env: Record<string, string | undefined>): string {
  const value = env[TOKEN_VARIABLE]?.trim();
  if (!value)
    throw new CliError(
      "missing_secret",
      `--status-provider: no token; put it in a file named by --status-token-file, or in ${TOKEN_VARIABLE}`,
    );
  return value;
}

function readTokenFile(path: string): string {
  let token: string;
  try {
    token = readRegularText(path, { maxBytes: 16 * 1024, what: "a token file (one token)" }).trim();
  } catch (e) {
    throw new CliError("missing_secret", `--status-token-file ${path}: ${e instanceof FileReadError ? e.reason : (e as Error).message}`);
  }
  if (token === "") throw new CliError("missing_secret", `--status-token-file ${path}: the file is empty`);
  return token;
}
