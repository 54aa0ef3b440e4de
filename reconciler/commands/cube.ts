import type { Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { addDay2Options, addWaitOptions, addYesOption, exitWith, shareExamples } from "./options.js";
import { parseOptions, waitOptionsOf } from "../arguments/options.js";
import { day2Context as context, YesOption } from "../arguments/connect.js";

const SshOptions = z.object({ exec: z._default(z.boolean(), false), identity: z.optional(z.string().check(z.minLength(1))) });

export function register(program: Command, io: CliIo): void {
  const cube = program
    .command("cube")
    .description("the live cubes of the space: list, show, restart, power off, wake, ssh, protect")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform cube list                       # every cube with its state
  $ cubeform cube list -o wide               # and its ssh user, server domain, cost, creation time
  $ cubeform cube show web --format json
  $ cubeform cube restart web --wait         # until it runs again
  $ cubeform cube power-off web && cubeform cube wake web   # power-off asks first
  $ cubeform cube power-off web --yes --wait                # without a terminal (CI)
  $ cubeform cube wake web --wait
  $ cubeform cube ssh web                    # prints the ssh command (host key pinned)
  $ cubeform cube ssh web --exec -- uptime   # runs it
  $ cubeform cube protect db                 # termination protection on: it cannot be deleted
  $ cubeform cube unprotect old-db           # off, for a cube the file does not declare

Cubes are named by name or id. These act on the live space directly; the file that
\`plan\`/\`apply\` read is not involved (a power change there is the file's \`power:\`).
restart, power-off, wake, protect and unprotect are safe to repeat: when the cube is already in
the state asked for, they say so and exit 0 (restart starts a stopped cube, as systemctl restart
does). A cube still stopping or booting is waited for (within --timeout) before the request is
sent: \`cube power-off web --yes && cube wake web\` wakes it once it has stopped. A 5xx answer
is retried (each request carries an Idempotency-Key, so it is performed once).
For a cube the file declares, its terminationProtection line decides (apply sets it back).
Exit codes: 0 done, 1 error (one line on stderr); \`ssh --exec\` exits with ssh's code.`,
    );

  const list = addDay2Options(cube.command("list").description("every cube of the space with its state"));
  list.options.find((o) => o.long === "--format")?.choices(["text", "wide", "json"]);
  list.action(async (raw: unknown) => {
    const { runCubeList } = await import("../actions/cube.js");
    const wide = (raw as { format?: unknown }).format === "wide";
    exitWith(
      await runCubeList({ ...context({ ...(raw as object), format: wide ? "text" : (raw as { format?: unknown }).format }, io), wide }, io),
    );
  });

  addDay2Options(
    cube.command("show").description("one cube: state, size, address, protection, ssh").argument("<cube>", "name or id"),
  ).action(async (ref: string, raw: unknown) => {
    const { runCubeShow } = await import("../actions/cube.js");
    exitWith(await runCubeShow({ ...context(raw, io), cube: ref }, io));
  });

  for (const [action, summary] of [
    ["restart", "cold-restart a running cube (a stopped one is started)"],
    ["power-off", "power off a running cube (its disk is kept)"],
    ["wake", "start a stopped cube"],
  ] as const) {
    const command = cube.command(action).description(summary).argument("<cube>", "name or id");
    addYesOption(
      addWaitOptions(addDay2Options(command), "wait until the cube has settled (running, or stopped for power-off)", {
        timeout: "5m",
        interval: "2s",
      }),
    ).action(async (ref: string, raw: unknown) => {
      const { runCubePower } = await import("../actions/cube.js");
      const { yes } = parseOptions(YesOption, raw);
      exitWith(await runCubePower({ ...context(raw, io), cube: ref, action, yes, ...waitOptionsOf(raw) }, io));
    });
  }

  for (const [action, value] of [
    ["protect", true],
    ["unprotect", false],
  ] as const) {
    addDay2Options(
      cube
        .command(action)
        .description(
          `turn termination protection ${value ? "on (the cube cannot be deleted)" : "off (a delete or prune can then remove it)"}`,
        )
        .argument("<cube>", "name or id"),
    ).action(async (ref: string, raw: unknown) => {
      const { runCubeProtect } = await import("../actions/cube.js");
      exitWith(await runCubeProtect({ ...context(raw, io), cube: ref, value }, io));
    });
  }

  addDay2Options(
    cube
      .command("ssh")
      .description("print the ssh command for a cube (or run it with --exec); the API's host key is pinned")
      .argument("<cube>", "name or id")
      .argument("[command...]", "with --exec: the remote command (after --)")
      .option("--exec", "run ssh instead of printing the command", false)
      .option("-i, --identity <file>", "private key file to pass to ssh"),
  ).action(async (ref: string, command: string[], raw: unknown) => {
    const { runCubeSsh } = await import("../actions/cube.js");
    const { exec, identity } = parseOptions(SshOptions, raw);
    exitWith(await runCubeSsh({ ...context(raw, io), cube: ref, exec, command, identity }, io));
  });
  shareExamples(cube);
}
