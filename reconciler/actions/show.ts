/** `cubeform show` (read-only): how to reach the space's cubes (ssh, TCP host:port, DNS records); with -f only those declared, --target narrows. */
import type { Cube } from "../../schema/api.js";
import type { DnsReadPace } from "../report/dns-reads.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { readReach, renderReachText, type ReachJson } from "../report/reach.js";
import type { Day2Context } from "../session/day2.js";
import { didYouMean } from "../../desired/index.js";
import { loadForSession, observeConcurrency, withConnection } from "../session/session.js";

export interface ShowContext extends Day2Context {
  /** Desired-state files; empty: every cube of the space. */
  files: string[];
  targets: string[];
  dnsPace: DnsReadPace;
}

export async function runShow(ctx: ShowContext, io: CliIo): Promise<number> {
  const desired = ctx.files.length > 0 ? (await loadForSession({ ...ctx, format: "text" }, io)).desired : undefined;
  const declared = desired?.cubes.map((cube) => cube.name);
  const { spaceId, reach } = await withConnection({ ...ctx, format: "text", fileSpaceId: desired?.spaceId }, io, async (conn) => {
    const live = (await conn.client.listCubes()).filter((cube) => cube.state !== "deleted");
    const cubes = chosen(live, declared, ctx.targets);
    return {
      spaceId: conn.spaceId,
      reach: await readReach(conn.client, cubes, { concurrency: observeConcurrency(conn), dnsPace: ctx.dnsPace }),
    };
  });
  if (ctx.format === "json") {
    const json: ReachJson = { formatVersion: 1, spaceId, cubes: reach };
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  if (reach.length === 0)
    writeLine(
      io.stdout,
      declared === undefined ? "No cubes in this space." : "None of the declared cubes exists in the space yet (run cubeform apply).",
    );
  else io.stdout.write(renderReachText(reach));
  if (declared !== undefined) {
    const missing = declared.filter(
      (name) => (ctx.targets.length === 0 || ctx.targets.includes(name)) && !reach.some((cube) => cube.name === name),
    );
    if (missing.length > 0)
      writeLine(io.stderr, escapeText(`Not in the space yet: ${missing.join(", ")} (declared in the file; run cubeform apply).`));
  }
  return 0;
}

/** The live cubes shown: declared ones (when a file is given), narrowed to the targets; sorted by name. */
function chosen(live: Cube[], declared: string[] | undefined, targets: string[]): Cube[] {
  if (declared === undefined) {
    const names = [...new Set(live.map((cube) => cube.name))];
    for (const target of targets) {
      if (!names.includes(target))
        throw new CliError("unknown_target", `--target ${target}: the space has no cube named "${target}"${didYouMean(target, names)}`);
    }
  }
  return live
    .filter((cube) => (declared === undefined || declared.includes(cube.name)) && (targets.length === 0 || targets.includes(cube.name)))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
