import { Option, type Command } from "commander";
import * as z from "zod/mini";
import { writeLine, type CliIo } from "../io.js";
import { VERSION } from "../version.js";
import { parseOptions } from "../arguments/options.js";
import { toYaml } from "../render/yaml-output.js";

const VersionOptions = z.object({ format: z.enum(["text", "json", "yaml"]) });

export function register(program: Command, io: CliIo): void {
  program
    .command("version")
    .description("print cubeform's version (the same as --version)")
    .addOption(new Option("--format <format>", "output format (json, yaml: for scripts)").choices(["text", "json", "yaml"]).default("text"))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform version
  $ cubeform version -o json
  $ cubeform --version`,
    )
    .action(async (raw: unknown) => {
      const { format } = parseOptions(VersionOptions, raw);
      const about = { version: VERSION, node: process.versions.node };
      if (format === "text") return writeLine(io.stdout, VERSION);
      if (format === "json") return writeLine(io.stdout, JSON.stringify(about, null, 2));
      io.stdout.write(await toYaml(about));
    });
}
