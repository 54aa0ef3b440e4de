/**
 * Issue 36 item 5: an advisory rule the inputs break is not a check failure but a warning, sent to the engine's Log (severity WARNING) at the
 * address the engine starts the plugin with, as `pulumi preview` shows a provider's warnings; check() still passes. Driven over gRPC.
 */
import { expect, it } from "vitest";
import { usePolicyStack } from "./support/policy-stack.js";
import { cubeInputs } from "./support/stack.js";

const setup = usePolicyStack(`  - name: debian-preferred
    enforcement: advisory
    allowed: { images: ["debian-*"] }
  - name: small
    enforcement: mandatory
    max: { vcpu: 2 }
`);
const POLICY = setup.policy;

const check = (inputs: Record<string, unknown>) => {
  const stack = setup.stack();
  return stack.plugin.check(stack.urn("Cube", "x"), undefined, stack.withProvider("Cube", inputs));
};

it("an advisory violation passes check() and reaches the engine as a WARNING log with the rule, what it saw and the fix", async () => {
  const engine = setup.engine();
  const result = await check(cubeInputs("web"));
  expect(result.failures).toEqual([]);
  expect(engine.logs).toEqual([
    {
      severity: 2,
      urn: "",
      message: `Cube web: policy debian-preferred (advisory, ${POLICY}:4:5): image ubuntu-24.04 is not allowed; fix: use an allowed image: debian-*`,
    },
  ]);
  // A mandatory one is still a failure, and the advisory one a warning beside it.
  const big = await check(cubeInputs("big", { resources: { vcpu: 4, ramGb: 4, diskGb: 20 } }));
  expect(big.failures).toEqual([
    expect.objectContaining({ property: "resources.vcpu", reason: expect.stringContaining("policy small (mandatory") }),
  ]);
  expect(engine.logs.map((l) => l.message)).toContain(
    `Cube big: policy debian-preferred (advisory, ${POLICY}:4:5): image ubuntu-24.04 is not allowed; fix: use an allowed image: debian-*`,
  );
  // Inputs within every rule: no warning.
  const before = engine.logs.length;
  expect((await check(cubeInputs("ok", { image: "debian-12" }))).failures).toEqual([]);
  expect(engine.logs).toHaveLength(before);
});
