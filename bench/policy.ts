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
  const plan = (extra: string[]): Promise<CliRun> => runCli(["plan", "-f", file, "--rate-limit", "10/60", "--format", "json", ...extra], { env, timeoutMs: 300_000 });
  try {
    const first = await plan(["--policy", policy]);
    if (first.stdout === "") throw new Error(`plan failed (exit ${first.exitCode}): ${first.stderr}`);
    const check = JSON.parse(first.stdout) as { policy: { rules: number; violations: unknown[] } };
    console.log(`${CUBES} cubes, ${check.policy.rules} rules: ${check.policy.violations.length} violations`);
    await plan([]);
    const without: number[] = [];
    const withPolicy: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating, the order swapped each round: both see the same machine.
      const order = i % 2 === 0 ? [false, true] : [true, false];
      for (const policed of order) (policed ? withPolicy : without).push((await plan(policed ? ["--policy", policy] : [])).wallMs);
    }
    const a = median(without);
    const b = median(withPolicy);
    console.log(`plan without policies: median ${a.toFixed(0)} ms of ${RUNS} (${without.map((v) => v.toFixed(0)).join(", ")})`);
    console.log(`plan with 10 rules:    median ${b.toFixed(0)} ms of ${RUNS} (${withPolicy.map((v) => v.toFixed(0)).join(", ")})`);
    console.log(`ratio: ${(b / a).toFixed(3)}× (bound: ≤ 1.05×) ${b / a <= 1.05 ? "PASS" : "MISS"}`);
  } finally {
    await emulator.stop();
  }
}

await main();
