import { type Command, Help, type Option } from "commander";
import { CliError } from "../errors.js";
import type { CliIo } from "../io.js";
import { completionScript, SHELLS, type CompletionFlag, type CompletionNode, type Shell } from "../completion.js";

export function register(program: Command, io: CliIo): void {
  program
    .command("completion")
    .description("print a shell completion script (subcommands, flags and their values)")
    .argument("<shell>", SHELLS.join(", "))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform completion bash > ~/.local/share/bash-completion/completions/cubeform
  $ cubeform completion zsh > "\${fpath[1]}/_cubeform"      # or: source <(cubeform completion zsh)
  $ cubeform completion fish > ~/.config/fish/completions/cubeform.fish

The script is generated from this version's commands: generate it again after an upgrade.`,
    )
    .action((shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new CliError("invalid_option", `no completion for shell "${shell}"; choose ${SHELLS.join(", ")}`);
      io.stdout.write(completionScript(shell as Shell, nodeOf(program, true)));
    });
}

/** The tree commander holds, as the completion scripts need it. */
function nodeOf(command: Command, isRoot = false): CompletionNode {
  const own = command.options.filter((o) => !o.hidden).map(flagOf);
  const builtIn: CompletionFlag[] = [{ long: "--help", short: "-h", description: "display help", takesValue: false }];
  if (isRoot) builtIn.push({ long: "--version", short: "-V", description: "print the version", takesValue: false });
  return {
    name: command.name(),
    summary: command.description(),
    flags: [...own.filter((f) => !builtIn.some((b) => b.long === f.long)), ...builtIn],
    // Hidden ones (__complete) are left out; visibleCommands also adds commander's own `help`, which is not offered.
    children: new Help()
      .visibleCommands(command)
      .filter((child) => command.commands.includes(child))
      .map((child) => nodeOf(child)),
    completesCube: command.registeredArguments[0]?.name() === "cube",
  };
}

function flagOf(option: Option): CompletionFlag {
  return {
    long: option.long ?? option.flags,
    ...(option.short ? { short: option.short } : {}),
    description: option.description,
    takesValue: option.required || option.optional,
    ...(option.argChoices ? { choices: option.argChoices } : {}),
  };
}
