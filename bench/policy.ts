/**
 * Issue 36's bound: a 10,000-cube plan checked against 10 policy rules stays within 1.05× of the same plan without policies.
 * Seeds the bench fleet (2 domains, 2 ports a cube) into an emulator process, then times `cubeform plan` (in sync, --format json) with and
 * without `--policy`, alternating, and prints the medians.
 *
 *   npx tsx bench/policy.ts [CUBES=10000] [RUNS=7]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCli } from "./build.js";
import { desiredYaml, fleet, seedStateFile } from "./fleet.js";
import { runCli, startEmulatorProcess, WORK_DIR, type CliRun } from "./measure.js";

const CUBES = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 7);
const API_KEY = "kro_bench_0123456789abcdef";
const SPACE_ID = "space-bench";

/** Ten rules of every cube-level kind, matching every cube: the most work a rule set of ten makes. */
const POLICY = `apiVersion: cubeform/v1
kind: Policy
rules:
  - { name: no-open-ports, enforcement: mandatory, deny: { portsOpenToInternet: true } }
  - { name: no-udp, enforcement: advisory, deny: { udpPorts: true } }
  - { name: closed-domains, enforcement: advisory, deny: { domainsWithoutAccessControl: true } }
  - { name: images, enforcement: mandatory, allowed: { images: ["ubuntu-*", "debian-*"] } }
  - { name: regions, enforcement: mandatory, allowed: { regions: ["eu-*"] } }
  - { name: size, enforcement: mandatory, max: { vcpu: 8, ramGb: 32, diskGb: 500 } }
  - { name: protected-prod, enforcement: advisory, match: { names: ["prod-*"] }, require: { terminationProtection: true } }
  - { name: cube-cost, enforcement: advisory, max: { monthlyCostPerCube: 100 } }
  - { name: change-cost, enforcement: mandatory, max: { monthlyCostIncrease: 1000 } }
  - { name: groups, enforcement: advisory, match: { groups: ["web"] }, replicas: { min: 2 } }
`;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  mkdirSync(WORK_DIR, { recursive: true });
  buildCli();
  const cubes = fleet(CUBES);
  const statePath = join(WORK_DIR, `policy-state-${CUBES}.json`);
  await seedStateFile(statePath, cubes, { apiKey: API_KEY, spaceId: SPACE_ID });
  const file = join(WORK_DIR, `policy-fleet-${CUBES}.yaml`);
  writeFileSync(file, desiredYaml(cubes));
  const policy = join(WORK_DIR, "policy-10-rules.yaml");
  writeFileSync(policy, POLICY);
  const emulator = await startEmulatorProcess({ statePath, rateLimit: { limit: 1_000_000, windowMs: 1_000 }, clockSpeed: 1_000 });
  const env = { CUBE_API_URL: emulator.url, CUBE_API_KEY: emulator.apiKey, CUBE_SPACE_ID: emulator.spaceId };
  const plan = (extra: string[]): Promise<CliRun> =>
    runCli(["plan", "-f", file, "--rate-limit", "10/60", "--format", "json", ...extra], { env, timeoutMs: 300_000 });
  try {
    const first = await plan(["--policy", policy]);
    if (first.stdout === "") throw new Error(`plan failed (exit ${first.exitCode}): ${first.stderr}`);
    const check = JSON.parse(first.stdout) as { policy: { rules: number; violations: unknown[]; existing?: { count: number }[] } };
    const kept = check.policy.existing ?? [];
    console.log(
      `${CUBES} cubes, ${check.policy.rules} rules: ${check.policy.violations.length} violations made by the change, ${kept.reduce((n, g) => n + g.count, 0)} already live (in ${kept.length} groups); JSON ${(first.stdout.length / 1e6).toFixed(1)} MB`,
    );
    await plan([]);
    const without: number[] = [];
    const withPolicy: number[] = [];
    const cpuWithout: number[] = [];
    const cpuWith: number[] = [];
    const pairRatios: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating, the order swapped each round: both see the same machine.
      const order = i % 2 === 0 ? [false, true] : [true, false];
      const pair: Record<string, number> = {};
      for (const policed of order) {
        const run = await plan(policed ? ["--policy", policy] : []);
        (policed ? withPolicy : without).push(run.wallMs);
        (policed ? cpuWith : cpuWithout).push((run.userMs ?? 0) + (run.systemMs ?? 0));
        pair[String(policed)] = run.wallMs;
      }
      pairRatios.push((pair.true as number) / (pair.false as number));
    }
    const a = median(without);
    const b = median(withPolicy);
    const list = (values: number[], digits = 0): string => values.map((v) => v.toFixed(digits)).join(", ");
    console.log(
      `plan without policies: median ${a.toFixed(0)} ms of ${RUNS} (${list(without)}); CPU median ${median(cpuWithout).toFixed(0)} ms (${list(cpuWithout)})`,
    );
    console.log(
      `plan with 10 rules:    median ${b.toFixed(0)} ms of ${RUNS} (${list(withPolicy)}); CPU median ${median(cpuWith).toFixed(0)} ms (${list(cpuWith)})`,
    );
    const sorted = [...pairRatios].sort((x, y) => x - y);
    console.log(
      `ratio of pairs (with / without, alternating): median ${median(pairRatios).toFixed(3)}×, spread ${(sorted[0] as number).toFixed(3)}–${(sorted[sorted.length - 1] as number).toFixed(3)} (${list(pairRatios, 3)})`,
    );
    console.log(`CPU ratio (user+sys medians): ${(median(cpuWith) / median(cpuWithout)).toFixed(3)}×`);
    console.log(`ratio of medians: ${(b / a).toFixed(3)}× (bound: ≤ 1.05×) ${b / a <= 1.05 ? "PASS" : "MISS"}`);
  } finally {
    await emulator.stop();
  }
}

await main();
