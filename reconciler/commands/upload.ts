import type { Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addDay2Options, addWaitOptions, exitWith, parseRateLimit } from "./options.js";
import { parseOptions, waitOptionsOf } from "../arguments/options.js";
import { Day2Options } from "../arguments/connect.js";

const UploadOptions = z.object({
  ...Day2Options.shape,
  name: z.string().check(z.trim(), z.minLength(1, "name the new cube"), z.maxLength(64, "at most 64 characters")),
  sshKey: z.optional(z.string().check(z.minLength(1))),
  keepSshKeys: z._default(z.boolean(), false),
  vcpu: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
  ramGb: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
  diskGb: z.optional(
    z.coerce.number().check(
      z.int(),
      z.minimum(10),
      z.refine((n) => n % 5 === 0, "a multiple of 5"),
    ),
  ),
  image: z.optional(z.string().check(z.minLength(1))),
  region: z.optional(z.string().check(z.minLength(1))),
  concurrency: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(16)), 4),
  keep: z._default(z.boolean(), false),
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("upload")
    .description("bring a machine in as a new cube from a .cube archive (multipart upload; see also: import)")
    .argument("<archive>", "the .cube archive (e.g. one `cubeform backup download` saved)")
    .requiredOption("--name <name>", "the new cube's name (one a live cube already has is refused)")
    .option("--ssh-key <file|key>", "public key to install for the login user (default: $CUBE_SSH_PUBLIC_KEY)")
    .option("--keep-ssh-keys", "keep the archive's own authorized_keys (you must hold a key it accepts)", false)
    .option("--vcpu <n>", "vCPUs of the new cube (default: the archive's, see below)")
    .option("--ram-gb <n>", "RAM of the new cube, in GB (default: the archive's)")
    .option("--disk-gb <n>", "disk of the new cube, in GB (at least 10, a multiple of 5; default: the archive's)")
    .option("--image <id>", "the image the archive's system is (see GET /images; default: the archive's, else ubuntu-24.04)")
    .option("--region <slug>", "region of the new cube (default: the API's)")
    .option("--concurrency <n>", "parts uploaded at once (1-16)", "4")
    .option("--keep", "on failure or Ctrl-C, keep the import instead of canceling it", false);
  addDay2Options(addWaitOptions(command, "wait until the new cube is running", { timeout: "10m", interval: "2s" }))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform upload web.cube --name web-restored --ssh-key ~/.ssh/id_ed25519.pub --wait
  $ cubeform upload other.cube --name other --vcpu 2 --ram-gb 8 --disk-gb 40 --image debian-13
  $ cubeform backup download nightly --out nightly.cube && cubeform upload nightly.cube --name copy --wait

The size (--vcpu, --ram-gb, --disk-gb) and --image default to those of the cube the archive was
made from: the API reads none from an archive, so they are taken from the backup of this space
that has the archive's byte count (as \`backup download\` saved it). Flags that differ from it are a
warning; an archive of no known backup needs the three size flags.

Not the same as \`cubeform import -O FILE\`, which writes a YAML file describing the cubes
already in the space (to manage them with plan/apply). \`upload\` creates a NEW cube from an archive.

Parts are sent with bounded concurrency and a failed part is retried on its own; the import is
completed only when every part arrived. Ctrl-C (or a failure) cancels the import, so nothing is
left behind, unless --keep. Exit codes: 0 uploaded (and running with --wait), 1 error, 130 stopped.`,
    )
    .action(async (archive: string, raw: unknown) => {
      const { runUpload } = await import("../actions/upload.js");
      const { rateLimit, ...options } = parseOptions(UploadOptions, raw);
      exitWith(await runUpload({ ...options, archive, rateLimit: parseRateLimit(rateLimit), ...waitOptionsOf(raw), cwd: cwdOf(io) }, io));
    });
}
