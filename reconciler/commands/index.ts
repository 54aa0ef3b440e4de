/**
 * Every command of the CLI, in the order --help lists them. A run loads ONLY the module of the command it invokes (`--version`, `--help`: none).
 * A command's module exports `register(program, io)` and imports its action lazily in `.action(...)`, nothing heavy at the top (client/, engine/,
 * emulator/, actions/); test/reconciler/commands.lazy.test.ts checks every entry against its module.
 */
import type { Command } from "commander";
import type { CliIo } from "../io.js";

export interface CommandModule {
  register(program: Command, io: CliIo): void;
}

export interface CommandEntry {
  name: string;
  /** How `cubeform --help` lists it after the name, e.g. "[options] <cube> [domain]". */
  usage: string;
  /** One line for `cubeform --help`; the same text as the command's `.description()`. */
  summary: string;
  /**
   * The first SIGINT/SIGTERM aborts `io.signal` instead of ending the process (the command
   * finishes the step under way and exits); a second one exits at once.
   */
  stopsGracefully?: boolean;
  /** Registers every other command too (fully, not as a stub): for commands that walk the tree. */
  registersEveryCommand?: boolean;
  /** Not listed by --help nor offered by completion (the completion scripts' own helper). */
  hidden?: boolean;
  load(): Promise<CommandModule>;
}

const STOPS_GRACEFULLY = { stopsGracefully: true };

/** What sets a command apart (see CommandEntry); the others have none of it. */
const TRAITS: Readonly<Record<string, Partial<CommandEntry>>> = {
  __complete: { hidden: true },
  apply: STOPS_GRACEFULLY,
  completion: { registersEveryCommand: true },
  demo: STOPS_GRACEFULLY,
  dns: STOPS_GRACEFULLY,
  emulator: STOPS_GRACEFULLY,
  login: STOPS_GRACEFULLY,
  preview: STOPS_GRACEFULLY,
  upload: STOPS_GRACEFULLY,
  watch: STOPS_GRACEFULLY,
};

const ENTRIES: readonly CommandEntry[] = [
  {
    name: "__complete",
    usage: "<cubes>",
    summary: "print live names for the shell completion scripts, one a line (nothing on any error)",
    load: () => import("./complete.js"),
  },
  {
    name: "apply",
    usage: "[options] [plan]",
    summary: "make the space match the file (or carry out a saved plan)",
    load: () => import("./apply.js"),
  },
  {
    name: "backup",
    usage: "<list|show|download|share|shares|accept|decline|cancel> …",
    summary: "list, download and share the space's backups (.cube archives)",
    load: () => import("./backup.js"),
  },
  {
    name: "completion",
    usage: "<bash|zsh|fish>",
    summary: "print a shell completion script (subcommands, flags and their values)",
    load: () => import("./completion.js"),
  },
  {
    name: "cube",
    usage: "<list|show|restart|power-off|wake|protect|unprotect|ssh> …",
    summary: "the live cubes of the space: list, show, restart, power off, wake, ssh, protect",
    load: () => import("./cube.js"),
  },
  {
    name: "demo",
    usage: "",
    summary: "apply examples/fleet.yaml to the embedded emulator and show the result (no account needed)",
    load: () => import("./demo.js"),
  },
  {
    name: "dns",
    usage: "[options] <cube> [domain]",
    summary: "show the DNS records a cube's domains need and whether they are published",
    load: () => import("./dns.js"),
  },
  {
    name: "drift",
    usage: "[options]",
    summary: "report how the space differs from the file (read-only)",
    load: () => import("./drift.js"),
  },
  {
    name: "emulator",
    usage: "[options]",
    summary: "serve the local Cube API emulator until Ctrl-C",
    load: () => import("./emulator.js"),
  },
  {
    name: "import",
    usage: "[options]",
    summary: "write a desired-state file (or a Pulumi program) that describes the live space (adopt an existing fleet; see also: upload)",
    load: () => import("./import.js"),
  },
  {
    name: "login",
    usage: "[options]",
    summary: "log in with the browser (device code) and save the key where the krova CLI keeps it",
    load: () => import("./login.js"),
  },
  {
    name: "plan",
    usage: "[options]",
    summary: "show what apply would change, without changing anything",
    load: () => import("./plan.js"),
  },
  {
    name: "preview",
    usage: "<up|down|list|sweep> …",
    summary: "a copy of the fleet per pull request: up, down, list, sweep (found again from the API alone)",
    load: () => import("./preview.js"),
  },
  {
    name: "show",
    usage: "[options]",
    summary: "how to reach the space's cubes: ssh command, TCP host:port, DNS records to publish (read-only)",
    load: () => import("./show.js"),
  },
  {
    name: "snapshot",
    usage: "<take|list|restore|delete> …",
    summary: "a cube's snapshots: take, list, restore, delete",
    load: () => import("./snapshot.js"),
  },
  {
    name: "status",
    usage: "[options]",
    summary: "print what a running watch is doing (its /status): source, space, last rounds, drift, rollouts, pacing",
    load: () => import("./status.js"),
  },
  {
    name: "upload",
    usage: "[options] <archive>",
    summary: "bring a machine in as a new cube from a .cube archive (multipart upload; see also: import)",
    load: () => import("./upload.js"),
  },
  {
    name: "validate",
    usage: "[options]",
    summary: "check the desired-state file without contacting the API",
    load: () => import("./validate.js"),
  },
  {
    name: "version",
    usage: "",
    summary: "print cubeform's version (the same as --version)",
    load: () => import("./version.js"),
  },
  {
    name: "watch",
    usage: "[options]",
    summary: "keep the space matching the file: plan every interval, and apply with --apply (GitOps loop)",
    load: () => import("./watch.js"),
  },
  {
    name: "webhook",
    usage: "<list|deliveries> …",
    summary: "the space's webhook endpoints and their delivery logs",
    load: () => import("./webhook.js"),
  },
];

export const COMMANDS: readonly CommandEntry[] = ENTRIES.map((entry) => ({ ...entry, ...TRAITS[entry.name] }));
