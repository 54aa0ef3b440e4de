/**
 * `-o yaml` wherever `-o json` is offered (issue 31 item 20): the command runs as with json, its stdout is kept, and the same document is
 * written as YAML when the command ends. One place, so YAML never drifts from the JSON a command documents.
 */
import { Writable } from "node:stream";
import type { Command, Option } from "commander";
import type { CliIo } from "../io.js";

/** The `--format`/`-o` value the arguments give, and where (so it can be rewritten). */
function formatAt(argv: readonly string[]): { index: number; value: string; inline: string | undefined } | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return undefined;
    if ((arg === "-o" || arg === "--format") && i + 1 < argv.length)
      return { index: i + 1, value: argv[i + 1] as string, inline: undefined };
    if (arg.startsWith("--format=")) return { index: i, value: arg.slice("--format=".length), inline: "--format=" };
    if (/^-o[^-]/.test(arg)) return { index: i, value: arg.slice(2).replace(/^=/, ""), inline: "-o" };
  }
  return undefined;
}

/** The (sub)command the arguments invoke, by its words. */
function invoked(program: Command, argv: readonly string[]): Command | undefined {
  let command: Command | undefined;
  let scope = program.commands;
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    const next = scope.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) break;
    command = next;
    scope = next.commands;
  }
  return command;
}

const choicesOf = (command: Command | undefined): readonly string[] =>
  (command?.options.find((o) => o.long === "--format") as (Option & { argChoices?: string[] }) | undefined)?.argChoices ?? [];

/** Lists yaml beside json in each --format's choices (help, completion): the value itself is turned into json before parsing. */
export function offerYaml(command: Command): void {
  const format = command.options.find((o) => o.long === "--format") as (Option & { argChoices?: string[] }) | undefined;
  if (format?.argChoices?.includes("json") && !format.argChoices.includes("yaml")) format.argChoices = [...format.argChoices, "yaml"];
  for (const sub of command.commands) offerYaml(sub);
}

/**
 * When the arguments ask a command whose json is turned into yaml here for `yaml`: the arguments with json instead, and an io whose stdout
 * is kept until `finish()` writes it as YAML. undefined otherwise (the command's own yaml, as `version` and `import` have, or no yaml asked).
 */
export function yamlRun(
  program: Command,
  argv: readonly string[],
  io: CliIo,
): { argv: string[]; io: CliIo; finish(): Promise<void> } | undefined {
  const at = formatAt(argv);
  if (at === undefined || at.value !== "yaml") return undefined;
  const command = invoked(program, argv);
  if (!choicesOf(command).includes("json") || nativeYaml.has(command as Command)) return undefined;
  const rewritten = [...argv];
  rewritten[at.index] = at.inline === undefined ? "json" : `${at.inline}json`;
  const chunks: string[] = [];
  const kept = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const yamlIo = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as CliIo;
  yamlIo.stdout = kept;
  return {
    argv: rewritten,
    io: yamlIo,
    finish: async () => {
      const text = chunks.join("");
      if (text.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        io.stdout.write(text); // not one JSON document (an error's text): as it was
        return;
      }
      io.stdout.write(await toYaml(value));
    },
  };
}

/** Commands that write YAML themselves (registered by buildProgram before offerYaml runs). */
export const nativeYaml = new WeakSet<Command>();

/** Marks the commands whose --format already had yaml before offerYaml: their yaml is their own. */
export function markNativeYaml(command: Command): void {
  if (choicesOf(command).includes("yaml")) nativeYaml.add(command);
  for (const sub of command.commands) markNativeYaml(sub);
}

/** A value as a YAML document (the yaml library loaded on first use; in the bundled CLI it arrives as CommonJS, under `default`). */
export async function toYaml(value: unknown): Promise<string> {
  const loaded = (await import("yaml")) as typeof import("yaml") & { default?: typeof import("yaml") };
  const stringify = loaded.stringify ?? loaded.default?.stringify;
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}
