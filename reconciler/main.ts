/** The CLI entry: runs the commander program and maps every error to one line on stderr and an exit code (nothing below exits or writes to console). */
import { Command, CommanderError, Help } from "commander";
import { COMMANDS, type CommandEntry } from "./commands/index.js";
import { ExitCode, formatProblem, hasCode, LoadError } from "./errors.js";
import { writeLine, type CliIo } from "./io.js";
import { redactingIo } from "./redact.js";
import { escapeText } from "./render/escape.js";
import { VERSION } from "./version.js";
import { markNativeYaml, offerYaml, yamlRun } from "./render/yaml-output.js";

export type { CliIo } from "./io.js";

export { VERSION };

/** Commands that end cleanly on io.signal (bin/cubeform.js turns SIGINT/SIGTERM into it for these only; others end at once). */
export const GRACEFUL_STOP_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.filter((c) => c.stopsGracefully).map((c) => c.name));

/** The invoked command fully registered; when help may list them, every other one as a stub naming itself (commands/index.ts). */
export async function buildProgram(io: CliIo, argv: readonly string[]): Promise<Command> {
  const program = new Command("cubeform")
    .description("Keep a fleet of Cubes in the shape that a YAML file says.")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError("(run with --help for usage)");
  const invoked = invokedCommand(argv);
  const stubs = new Map<Command, CommandEntry>();
  for (const entry of COMMANDS) {
    if (entry === invoked || invoked?.registersEveryCommand) (await entry.load()).register(program, io);
    else if (invoked === undefined || argv.includes("--help") || argv.includes("-h"))
      stubs.set(program.command(entry.name, { hidden: entry.hidden === true }).description(entry.summary), entry);
  }
  giveFormatShortFlag(program);
  markNativeYaml(program);
  offerYaml(program);
  const help = new Help();
  program.configureHelp({
    subcommandTerm: (command) => {
      const stub = stubs.get(command);
      return stub ? [stub.name, stub.usage].filter(Boolean).join(" ") : help.subcommandTerm(command);
    },
  });
  return program;
}

/** `-o` for `--format` on every command that prints (a file to write is `-O`: `import --output`, `backup download --out`). */
function giveFormatShortFlag(command: Command): void {
  const format = command.options.find((o) => o.long === "--format");
  if (format && format.short === undefined && !command.options.some((o) => o.short === "-o")) {
    format.short = "-o";
    format.flags = `-o, ${format.flags}`;
  }
  for (const sub of command.commands) giveFormatShortFlag(sub);
}

/** The command the arguments name (`cubeform help NAME` names NAME); undefined for none. */
function invokedCommand(argv: readonly string[]): CommandEntry | undefined {
  const words = argv.filter((a) => !a.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  return COMMANDS.find((c) => c.name === name);
}

export async function main(argv: string[], rawIo: CliIo): Promise<number> {
  const io = redactingIo(rawIo);
  try {
    const program = await buildProgram(io, argv);
    const yaml = yamlRun(program, argv, io);
    if (yaml === undefined) await program.parseAsync(argv, { from: "user" });
    else {
      // -o yaml: the command runs as with json; its document is written as YAML when it ends (render/yaml-output.ts).
      try {
        await (await buildProgram(yaml.io, yaml.argv)).parseAsync(yaml.argv, { from: "user" });
      } finally {
        await yaml.finish();
      }
    }
    return 0;
  } catch (e) {
    return reportError(e, io);
  }
}

function reportError(e: unknown, io: CliIo): number {
  // Commander already printed its own message (or the help).
  if (e instanceof CommanderError || e instanceof ExitCode) return e.exitCode;
  if (e instanceof LoadError) {
    for (const problem of e.problems) writeLine(io.stderr, escapeText(formatProblem(problem)));
    writeLine(io.stderr, `Error: ${e.message}`);
    return e.exitCode;
  }
  if (hasCode(e)) {
    writeLine(io.stderr, `Error: ${oneLine(e.message)}${afterRetries(e)}`);
    return typeof e.exitCode === "number" ? e.exitCode : 1;
  }
  // A bug, not a user error: the stack helps, but only when asked for.
  const message = e instanceof Error ? e.message : String(e);
  if (io.env.CUBEFORM_DEBUG && e instanceof Error && e.stack) writeLine(io.stderr, e.stack);
  else writeLine(io.stderr, `Error: unexpected failure: ${oneLine(message)} (set CUBEFORM_DEBUG=1 for the stack trace)`);
  return 1;
}

/** "(gave up after 4 retries)" when the client resent the request before failing. */
function afterRetries(e: Error): string {
  const retries = (e as { retries?: unknown }).retries;
  return typeof retries === "number" && retries > 0 ? ` (gave up after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
}

function oneLine(text: string): string {
  return escapeText(text.replace(/\s*\n\s*/g, " ").trim());
}
