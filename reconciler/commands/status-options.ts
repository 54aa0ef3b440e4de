/** The commit-status flags of `watch --repo` and `apply --repo` (issue 35): --status-provider and how to reach the forge. */
import { Option, type Command } from "commander";
import "../../schema/zod-english.js";
import * as z from "zod/mini";

const PROVIDERS = ["github", "gitlab", "gitea"] as const;

export const StatusOptions = z.object({
  statusProvider: z.optional(z.enum(PROVIDERS)),
  statusUrl: z.optional(z.string().check(z.minLength(1))),
  statusRepo: z.optional(z.string().check(z.minLength(1))),
  statusContext: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
  statusTokenFile: z.optional(z.string().check(z.minLength(1))),
  statusTargetUrl: z.optional(z.url()),
});

export function addStatusOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--status-provider <forge>",
        "with --repo: post a commit status on each revision (pending, success, failure, error: superseded)",
      ).choices(PROVIDERS),
    )
    .option(
      "--status-url <url>",
      "the forge's API root (default: from --repo's host: https://api.github.com, https://HOST/api/v4 for GitLab, https://HOST/api/v1 for Gitea)",
    )
    .option(
      "--status-repo <name>",
      "the repository the statuses go to: OWNER/NAME, or GitLab's GROUP/PROJECT or project id (default: from --repo's URL)",
    )
    .option("--status-context <name>", "the status's context (GitLab: its name); {space} is the space's id (default: cubeform/{space})")
    .option(
      "--status-token-file <path>",
      "a file holding the forge token (default: the CUBEFORM_STATUS_TOKEN variable); never pass a token on the command line",
    )
    .option("--status-target-url <url>", "a link shown with each status (e.g. this loop's /status page)");
}

/** The status flags of a command's parsed options, and the rest. */
export function takeStatusFlags<T extends z.output<typeof StatusOptions>>(
  parsed: T,
): { flags: z.output<typeof StatusOptions>; rest: Omit<T, keyof z.output<typeof StatusOptions>> } {
  const { statusProvider, statusUrl, statusRepo, statusContext, statusTokenFile, statusTargetUrl, ...rest } = parsed;
  return { flags: { statusProvider, statusUrl, statusRepo, statusContext, statusTokenFile, statusTargetUrl }, rest };
}
