import type { Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { addDay2Options, addWaitOptions, addYesOption, exitWith, shareExamples } from "./options.js";
import { parseOptions, waitOptionsOf } from "../arguments/options.js";
import { day2Context as context, YesOption } from "../arguments/connect.js";

const IgnoreNotFound = z.object({ ignoreNotFound: z._default(z.boolean(), false) });

const TakeOptions = z.object({ name: z.optional(z.string().check(z.minLength(1), z.maxLength(128))) });

export function register(program: Command, io: CliIo): void {
  const snapshot = program
    .command("snapshot")
    .description("a cube's snapshots: take, list, restore, delete")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform snapshot take web --name before-upgrade --wait
  $ cubeform snapshot list web
  $ cubeform snapshot restore web before-upgrade          # asks first: the disk is rewritten
  $ cubeform snapshot restore web before-upgrade --yes --wait
  $ cubeform snapshot delete web before-upgrade --yes

restore and delete ask on a terminal and refuse without one unless --yes.
Cubes and snapshots are named by name or id. Exit codes: 0 done, 1 error (one line on stderr).`,
    );

  addWaitingOptions(
    snapshot
      .command("take")
      .description("take a snapshot of a cube (one at a time per cube)")
      .argument("<cube>", "name or id")
      .option(
        "--name <name>",
        "the snapshot's name (default: the cube's name and the time; one the cube's snapshots already have is refused)",
      ),
    "wait until the snapshot is complete",
  ).action(async (cube: string, raw: unknown) => {
    const { runSnapshotTake } = await import("../actions/snapshot.js");
    const { name } = parseOptions(TakeOptions, raw);
    exitWith(await runSnapshotTake({ ...context(raw, io), cube, ...waitOptionsOf(raw), name }, io));
  });

  addDay2Options(snapshot.command("list").description("the snapshots of a cube").argument("<cube>", "name or id")).action(
    async (cube: string, raw: unknown) => {
      const { runSnapshotList } = await import("../actions/snapshot.js");
      exitWith(await runSnapshotList({ ...context(raw, io), cube }, io));
    },
  );

  addYesOption(
    addWaitingOptions(
      snapshot
        .command("restore")
        .description("restore a cube from one of its complete snapshots (rewrites its disk; asks first)")
        .argument("<cube>", "name or id")
        .argument("<snapshot>", "name or id"),
      "wait until the cube is back in the state it was in (running or stopped)",
    ),
  ).action(async (cube: string, ref: string, raw: unknown) => {
    const { runSnapshotRestore } = await import("../actions/snapshot.js");
    const { yes } = parseOptions(YesOption, raw);
    exitWith(await runSnapshotRestore({ ...context(raw, io), cube, snapshot: ref, yes, ...waitOptionsOf(raw) }, io));
  });

  addYesOption(
    addDay2Options(
      snapshot
        .command("delete")
        .description("delete a snapshot of a cube (asks first)")
        .argument("<cube>", "name or id")
        .argument("<snapshot>", "name or id"),
    ),
  )
    .option("--ignore-not-found", "a snapshot (or cube) that does not exist is success: nothing to delete, exit 0", false)
    .action(async (cube: string, ref: string, raw: unknown) => {
      const { runSnapshotDelete } = await import("../actions/snapshot.js");
      const { yes } = parseOptions(YesOption, raw);
      const { ignoreNotFound } = parseOptions(IgnoreNotFound, raw);
      exitWith(await runSnapshotDelete({ ...context(raw, io), cube, snapshot: ref, yes, ignoreNotFound }, io));
    });
  shareExamples(snapshot);
}

function addWaitingOptions(command: Command, waitsFor: string): Command {
  return addWaitOptions(addDay2Options(command), waitsFor, { timeout: "10m", interval: "2s" });
}
