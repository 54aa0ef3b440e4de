import type { Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { addDay2Options, addYesOption, exitWith, shareExamples } from "./options.js";
import { parseOptions } from "../arguments/options.js";
import { day2Context as context, YesOption } from "../arguments/connect.js";

const DownloadOptions = z.object({ out: z.optional(z.string().check(z.minLength(1))), force: z._default(z.boolean(), false) });

export function register(program: Command, io: CliIo): void {
  const backup = program
    .command("backup")
    .description("list, download and share the space's backups (.cube archives)")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform backup list
  $ cubeform backup show nightly --format json
  $ cubeform backup download nightly --out nightly.cube   # Ctrl-C keeps nightly.cube.part; run again to resume
  $ cubeform backup download nightly -O nightly.cube -o json  # -O is --out (the file), -o is --format
  $ cubeform backup share nightly --to spc_staging        # asks first; the other space accepts it
  $ cubeform backup share nightly --to spc_staging --yes  # without a terminal (CI)
  $ cubeform backup shares                                # pending offers, both ways
  $ cubeform backup accept shr_123                        # (in the destination space)
  $ cubeform backup decline shr_123                       # (in the destination space)
  $ cubeform backup cancel shr_123                        # withdraw an offer this space made

Backups are named by name or id. Exit codes: 0 done, 1 error (one line on stderr).`,
    );

  addDay2Options(backup.command("list").description("the space's backups, newest first")).action(async (raw: unknown) => {
    const { runBackupList } = await import("../actions/backup.js");
    exitWith(await runBackupList(context(raw, io), io));
  });

  addDay2Options(backup.command("show").description("one backup: size, origin, config").argument("<backup>", "name or id")).action(
    async (ref: string, raw: unknown) => {
      const { runBackupShow } = await import("../actions/backup.js");
      exitWith(await runBackupShow({ ...context(raw, io), backup: ref }, io));
    },
  );

  addDay2Options(
    backup
      .command("download")
      .description("stream a backup's .cube archive to a file (resumes FILE.part; checks the byte count)")
      .argument("<backup>", "name or id")
      .option("-O, --out <file>", "where to write (default: the archive's name from the API; -o is --format, as everywhere)")
      .option("--force", "overwrite the file when it exists", false),
  ).action(async (ref: string, raw: unknown) => {
    const { runBackupDownload } = await import("../actions/backup.js");
    const { out, force } = parseOptions(DownloadOptions, raw);
    exitWith(await runBackupDownload({ ...context(raw, io), backup: ref, force, out }, io));
  });

  addYesOption(
    addDay2Options(
      backup
        .command("share")
        .description("offer a backup to another space (pending until that space accepts, 48 h)")
        .argument("<backup>", "name or id")
        .requiredOption("--to <space>", "the destination space's id"),
    ),
  ).action(async (ref: string, raw: unknown) => {
    const { runBackupShare } = await import("../actions/backup.js");
    const { to } = parseOptions(z.object({ to: z.string().check(z.trim(), z.minLength(1, "name the destination space's id")) }), raw);
    const { yes } = parseOptions(YesOption, raw);
    exitWith(await runBackupShare({ ...context(raw, io), backup: ref, to, yes }, io));
  });

  addDay2Options(backup.command("shares").description("pending backup shares to and from this space")).action(async (raw: unknown) => {
    const { runBackupShares } = await import("../actions/backup.js");
    exitWith(await runBackupShares(context(raw, io), io));
  });

  for (const [answer, summary] of [
    ["accept", "accept a share offered to this space (the copy is made here)"],
    ["decline", "decline a share offered to this space"],
    ["cancel", "withdraw a share this space offered"],
  ] as const) {
    addDay2Options(backup.command(answer).description(summary).argument("<share>", "the share's id (see `cubeform backup shares`)")).action(
      async (share: string, raw: unknown) => {
        const { runBackupAnswer } = await import("../actions/backup.js");
        exitWith(await runBackupAnswer({ ...context(raw, io), share, answer }, io));
      },
    );
  }
  shareExamples(backup);
}
