/**
 * Issue 34's bound: a 10-member rollout (maxUnavailable 2) takes within 1.15× of the plan's own estimate. Runs the e2e check with the emulator
 * at speed 1 (cubes boot in the documented 5 s), which prints "estimate E s, wall W s, ratio R" and fails above the bound.
 *
 *   npx tsx bench/rollout-estimate.ts
 */
import { spawnSync } from "node:child_process";

const run = spawnSync("npx", ["vitest", "run", "test/reconciler/rollout.estimate.test.ts", "--maxWorkers=1", "--silent=false"], {
  env: { ...process.env, CUBEFORM_TIMED: "1" },
  encoding: "utf8",
});
const figure = /rollout of 10, maxUnavailable 2: .*/.exec(run.stdout)?.[0];
console.log(figure ?? "no figure printed");
console.log(run.status === 0 ? "PASS within 1.15× of the estimate" : `MISS (exit ${run.status})\n${run.stdout.slice(-2000)}`);
process.exit(run.status ?? 1);
