/**
 * `cubeform demo` (`npm start`): apply examples/fleet.yaml to the embedded emulator, show the DNS records to publish and that a second plan has no
 * changes. No account, no network; the emulator's state is in a temporary directory, so every run starts from an empty space.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plan } from "../../engine/index.js";
import { DEFAULT_RATE_LIMIT, type Connection } from "../session/connect.js";
import { writeLine, type CliIo } from "../io.js";
import type { LoadedFiles } from "../../desired/index.js";
import { loadFleetForCli } from "../hints.js";
import { renderPlan } from "../render/index.js";
import { hasChanges } from "../render/values.js";
import { applyPlan, applySummaryLines } from "../watch/apply-plan.js";
import { readCubeDns } from "../report/dns-reads.js";
import { renderDns } from "../render/dns.js";
import { renderContext } from "../render/context.js";
import { computePlan, withConnection } from "../session/session.js";

export const DEMO_FILE = "examples/fleet.yaml";
const FLAGS = { targets: [], prune: false, allowReplace: false };

/** `packageRoot`: where examples/ is; found from this module's location when absent. */
export async function runDemo(ctx: { packageRoot?: string }, io: CliIo): Promise<number> {
  const root = ctx.packageRoot ?? packageRoot();
  const loaded = await loadFleetForCli({ files: [DEMO_FILE], cwd: root, env: io.env });
  const stateDir = mkdtempSync(join(tmpdir(), "cubeform-demo-"));
  try {
    const session = { files: [], cwd: stateDir, emulator: true, rateLimit: DEFAULT_RATE_LIMIT, format: "text" as const };
    return await withConnection(session, io, (conn) => demo(conn, loaded, io));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

async function demo(conn: Connection, loaded: LoadedFiles, io: CliIo): Promise<number> {
  const out = io.stdout;
  writeLine(out, `cubeform demo: ${DEMO_FILE} against the embedded emulator (no account, no network, nothing kept).`);
  heading(out, `1. Plan: what apply would change in the empty space`);
  // With the file as its source: the catalog is checked and the plan priced, as `plan` does (the cost line under the summary).
  const { plan } = await computePlan(conn, loaded.desired, FLAGS, DEFAULT_RATE_LIMIT, io.stderr, loaded);
  out.write(renderPlan(plan, "text", renderContext(loaded, io)));

  heading(out, "2. Apply (auto-approved)");
  const result = await applyPlan(conn, plan, loaded.desired, {
    env: io.env,
    out,
    shouldStop: () => io.signal?.aborted === true,
    waitTimeoutMs: 60_000,
    pollIntervalMs: 50,
  });
  for (const line of applySummaryLines(result)) writeLine(out, line);

  heading(out, "3. DNS records to publish at your DNS provider");
  await printDns(conn, loaded, io);

  heading(out, "4. Plan again: the space should now match the file");
  const second = (await computePlan(conn, loaded.desired, FLAGS, DEFAULT_RATE_LIMIT, io.stderr, loaded)).plan;
  return printSecondPlan(second, loaded, io);
}

async function printDns(conn: Connection, loaded: LoadedFiles, io: CliIo): Promise<void> {
  const cubes = await conn.client.listCubes();
  for (const spec of loaded.desired.cubes) {
    const cube = cubes.find((c) => c.name === spec.name);
    if (cube === undefined || (spec.domains ?? []).length === 0) continue;
    const report = await readCubeDns(conn.client, cube, await conn.client.listDomains(cube.id));
    io.stdout.write(renderDns(report, "text"));
  }
  writeLine(io.stdout, `\n"not published yet" is expected here: nobody has published them. With a real space, check again with:`);
  writeLine(io.stdout, `  cubeform dns web --wait`);
}

function printSecondPlan(plan: Plan, loaded: LoadedFiles, io: CliIo): number {
  if (hasChanges(plan)) {
    io.stdout.write(renderPlan(plan, "text", renderContext(loaded, io)));
    writeLine(io.stdout, "The demo did not converge: the plan above still has changes.");
    return 1;
  }
  writeLine(io.stdout, "No changes. Your fleet matches the file.");
  writeLine(
    io.stdout,
    `\nNext: \`mkdir my-fleet && cp ${DEMO_FILE} my-fleet/cubeform.yaml && cd my-fleet\`, edit the file, and run \`npx --no-install cubeform plan --emulator\` (or set CUBE_API_KEY for your space; see the README for installing cubeform into your own project).`,
  );
  return 0;
}

function heading(out: NodeJS.WritableStream, title: string): void {
  writeLine(out, `\n== ${title}`);
}

/** The nearest directory above this module that holds examples/ (dist/… when built, the source tree under tests). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, DEMO_FILE)) || !existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${DEMO_FILE} above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}
