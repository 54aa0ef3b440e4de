import type { Command } from "commander";
import { z } from "zod";
import { cwdOf, type CliIo } from "../io.js";
import { parseDuration } from "../../system/time.js";
import { addDay2Options, Day2Options, exitWith, parseOptions, parseRateLimit, shareExamples } from "./options.js";
import { addYesOption, YesOption } from "./options.js";

function context(raw: unknown, io: CliIo) {
  const { rateLimit, ...options } = parseOptions(z.looseObject(Day2Options.shape), raw);
  return { ...options, rateLimit: parseRateLimit(rateLimit), cwd: cwdOf(io) };
}

const TakeOptions = z.object({
  name: z.string().min(1).max(128).optional(),
  wait: z.boolean().default(false),
  timeout: z.string().default("10m"),
  interval: z.string().default("2s"),
});

const RestoreOptions = z.object({ yes: z.boolean().default(false), wait: z.boolean().default(false), timeout: z.string().default("10m"), interval: z.string().default("2s") });

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
      .option("--name <name>", "the snapshot's name (default: the cube's name and the time)"),
    "wait until the snapshot is complete",
  ).action(async (cube: string, raw: unknown) => {
    const { runSnapshotTake } = await import("../actions/snapshot.js");
    const { name, wait, timeout, interval } = parseOptions(TakeOptions, raw);
    exitWith(await runSnapshotTake({ ...context(raw, io), cube, wait, timeoutMs: parseDuration(timeout, "--timeout"), intervalMs: parseDuration(interval, "--interval"), ...(name !== undefined ? { name } : {}) }, io));
  });

  addDay2Options(snapshot.command("list").description("the snapshots of a cube").argument("<cube>", "name or id")).action(async (cube: string, raw: unknown) => {
    const { runSnapshotList } = await import("../actions/snapshot.js");
    exitWith(await runSnapshotList({ ...context(raw, io), cube }, io));
  });

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
    const { yes, wait, timeout, interval } = parseOptions(RestoreOptions, raw);
    exitWith(await runSnapshotRestore({ ...context(raw, io), cube, snapshot: ref, yes, wait, timeoutMs: parseDuration(timeout, "--timeout"), intervalMs: parseDuration(interval, "--interval") }, io));
  });

  addYesOption(addDay2Options(snapshot.command("delete").description("delete a snapshot of a cube (asks first)").argument("<cube>", "name or id").argument("<snapshot>", "name or id"))).action(
    async (cube: string, ref: string, raw: unknown) => {
      const { runSnapshotDelete } = await import("../actions/snapshot.js");
      const { yes } = parseOptions(YesOption, raw);
      exitWith(await runSnapshotDelete({ ...context(raw, io), cube, snapshot: ref, yes }, io));
    },
  );
  shareExamples(snapshot);
}

/** The day-2 options, and --wait with how long and how often it checks. */
function addWaitingOptions(command: Command, waitsFor: string): Command {
  return addDay2Options(command)
    .option("--wait", waitsFor, false)
    .option("--timeout <duration>", "how long --wait waits", "10m")
    .option("--interval <duration>", "how often --wait checks", "2s");
}
