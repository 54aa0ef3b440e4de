import type { Command } from "commander";
import { z } from "zod";
import { cwdOf, type CliIo } from "../io.js";
import {
  addConnectOptions,
  addFileOption,
  addFormatOption,
  addTargetOption,
  ConnectOptions,
  exitWith,
  FileOptions,
  FormatOption,
  parseOptions,
  TargetOption,
  parseRateLimit,
} from "./options.js";

const DriftOptions = z.object({ ...FileOptions.shape, ...ConnectOptions.shape, ...FormatOption.shape, ...TargetOption.shape });

export function register(program: Command, io: CliIo): void {
  const command = program.command("drift").description("report how the space differs from the file (read-only)");
  addTargetOption(addFormatOption(addConnectOptions(addFileOption(command))))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform drift
  $ cubeform drift --format github     # annotations + step summary in GitHub Actions
  $ cubeform drift --format json | jq '.plan.summary'

Reports changed fields, missing cubes, domains and ports, unmanaged cubes, blocked actions,
and domains whose DNS records are not all found (missing = not published yet, unknown = the
service could not check; neither is drift by itself).
Exit codes: 0 in sync, 2 drift, 1 error.`,
    )
    .action(async (raw: unknown) => {
      const { runDrift } = await import("../actions/drift.js");
      const { target, rateLimit, ...options } = parseOptions(DriftOptions, raw);
      exitWith(await runDrift({ ...options, targets: target, rateLimit: parseRateLimit(rateLimit), cwd: cwdOf(io) }, io));
    });
}
