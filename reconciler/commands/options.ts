/** Flags shared by the commands, as commander declares them; the values they parse into are in arguments/. */
import { Option, type Command } from "commander";
import { ExitCode } from "../errors.js";
import { parseRateLimit } from "../session/rate-limit.js";
import { DAY2_FORMATS, DEFAULT_FILE, DEFAULT_PARALLELISM, durationFlag, FORMATS } from "../arguments/options.js";

export function addFileOption(command: Command): Command {
  return command.addOption(
    new Option("-f, --file <path>", "desired-state file, a directory of .yaml files, or - for standard input; repeatable")
      .argParser(collect)
      .default([], DEFAULT_FILE),
  );
}

/** A repeatable flag's values, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addConnectOptions(command: Command): Command {
  return command
    .option("--emulator", "run against the embedded local emulator (state in .cubeform/ beside the file)", false)
    .option("--rate-limit <N/SECONDS>", "mutations allowed per window, as the API enforces it", "10/60")
    .option(
      "--parallelism <n>",
      `API requests in flight at once: reads (mutations are paced by --rate-limit) (default: ${DEFAULT_PARALLELISM}, widened up to 256 when the round trip is long)`,
    )
    .option(
      "--state-dir <dir>",
      "where the create journal and secret digests are kept (default: $CUBEFORM_STATE_DIR, else .cubeform/ beside the file)",
    );
}

export function addFormatOption(command: Command): Command {
  return command.addOption(new Option("--format <format>", "output format").choices(FORMATS).default("text"));
}

export function addTargetOption(command: Command): Command {
  return command.addOption(new Option("--target <name>", "limit to this cube (repeatable)").argParser(collect).default([], "every cube"));
}

/** How DNS record views are read (drift, dns): see reconciler/report/dns-reads.ts. */
export function addDnsReadOptions(command: Command): Command {
  return command
    .option("--dns-concurrency <n>", "DNS record checks in flight at once", "4")
    .option("--dns-rate <N/SECONDS>", "DNS record checks started per window (the service rate-limits them)", "10/1");
}

/** Ends the command with an action's exit code. */
export function exitWith(code: number): void {
  if (code !== 0) throw new ExitCode(code);
}

export { parseRateLimit };

export function addDay2Options(command: Command): Command {
  return addConnectOptions(command).addOption(
    new Option("--format <format>", "output format (json: for scripts; progress goes to stderr)").choices(DAY2_FORMATS).default("text"),
  );
}

/** `--wait` with how long (`--timeout`) and how often (`--interval`) it checks. */
export function addWaitOptions(command: Command, waitsFor: string, defaults: { timeout: string; interval: string }): Command {
  return command
    .option("--wait", waitsFor, false)
    .option("--timeout <duration>", "how long --wait waits (e.g. 90s, 10m; a bare number: seconds)", defaults.timeout)
    .option("--interval <duration>", "how often --wait checks (e.g. 2s; a bare number: seconds)", defaults.interval);
}

/** `--repo URL [--ref REF] [--path PATH]` and its credentials: the desired state from a git repository instead of -f. */
export function addRepoOptions(command: Command): Command {
  return command
    .option(
      "--repo <url>",
      "read the desired state from a git repository (https://, ssh://, user@host:path, file:// or a local path) instead of -f",
    )
    .option("--ref <ref>", "with --repo: the branch, tag or commit (default: the remote's default branch)")
    .option("--path <path>", "with --repo: a file or directory of .yaml files inside the repository", "cubeform.yaml")
    .option("--secrets-dir <dir>", "with --repo: where webhooks' secretFiles are written (never into the checkout)")
    .option("--git-token-env <name>", "with an https --repo: the environment variable holding an access token")
    .option("--git-token-file <path>", "with an https --repo: a file holding an access token (re-read every fetch)")
    .option("--git-username <name>", "the user name sent with the token", "x-access-token")
    .option("--ssh-key <file>", "with an ssh --repo: the private key file")
    .option("--ssh-known-hosts <file>", "with an ssh --repo: the known_hosts file (host keys are always checked)")
    .option(
      "--allowed-signers <file>",
      "with --repo: apply only commits with an SSH signature by a key in this file (git's gpg.ssh.allowedSignersFile format)",
    )
    .option("--git-timeout <duration>", "kill a git command that takes longer (e.g. 30s, 2m; a bare number: seconds)", "60s");
}

/** --prune and --allow-replace (plan, apply, watch). */
export function addPlanFlagOptions(command: Command): Command {
  return command
    .option("--prune", "delete cubes of the space that the file does not declare (never protected ones)", false)
    .option("--allow-replace", "allow replacing cubes (destroys their disks)", false)
    .option(
      "--allow-unknown-cost",
      "with a budget set, go ahead when the prices cannot be read or are implausible (the budget is then not checked)",
      false,
    )
    .addOption(
      new Option(
        "--pricing-timeout <duration>",
        "how long the prices (GET /pricing) may take before the cost is unknown (a bare number: seconds)",
      )
        .argParser((text: string) => durationFlag(text, "--pricing-timeout", "s"))
        .default(10_000, "10s"),
    );
}

/** Where plan, drift, apply and watch read the desired state (-f or --repo) and which space and cubes. */
export function addSessionOptions(command: Command): Command {
  return addRepoOptions(addTargetOption(addConnectOptions(addFileOption(command))));
}

/** `--wait-timeout` and `--poll-interval` (apply, watch): how steps wait for a cube's state. */
export function addStepWaitOptions(command: Command): Command {
  return command
    .option("--wait-timeout <duration>", "how long to wait for a cube to reach a state (e.g. 90s, 10m; a bare number: seconds)", "10m")
    .option("--poll-interval <duration>", "how often to poll while waiting (e.g. 500ms, 2s; a bare number: milliseconds)", "2s");
}

/** For commands that destroy or replace data: they ask on a terminal, and refuse without one unless --yes. */
export function addYesOption(command: Command): Command {
  return command.option("-y, --yes", "do not ask for confirmation (required when stdin is not a terminal)", false);
}

/** Gives each subcommand of a group the group's example lines that run it, for `cubeform GROUP SUB --help`. */
export function shareExamples(group: Command): Command {
  const lines = helpTextAfter(group)
    .split("\n")
    .filter((line) => line.startsWith("  $ "));
  for (const sub of group.commands) {
    const runsIt = new RegExp(`\\bcubeform ${group.name()} ${sub.name()}(?![\\w-])`);
    const own = lines.filter((line) => runsIt.test(line));
    if (own.length > 0) sub.addHelpText("after", `\nExamples:\n${own.join("\n")}`);
  }
  return group;
}

/** What addHelpText("after", …) added to a command's --help. */
function helpTextAfter(command: Command): string {
  let text = "";
  (command as unknown as NodeJS.EventEmitter).emit("afterHelp", { error: false, command, write: (s: string) => (text += s) });
  return text;
}
