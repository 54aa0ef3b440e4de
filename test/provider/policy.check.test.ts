/** Issue 36 item 5: the provider reads the same policy file (CUBEFORM_POLICY) and fails check() over gRPC with the rule's message on a mandatory violation. */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { writePolicyFile } from "../support/policy-file.js";
import { cubeInputs, startStack, type Stack } from "./support/stack.js";

const { dir, path: POLICY } = writePolicyFile(`  - name: small-prod
    enforcement: mandatory
    match: { names: ["prod-*"] }
    max: { vcpu: 2 }
  - name: no-open-ports
    enforcement: mandatory
    deny: { portsOpenToInternet: true }
  - name: debian-preferred
    enforcement: advisory
    allowed: { images: ["debian-*"] }
`);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { CUBEFORM_POLICY: POLICY } });
});
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (kind: "Cube" | "TcpMapping", inputs: Record<string, unknown>) =>
  stack.plugin.check(stack.urn(kind, "x"), undefined, stack.withProvider(kind, inputs));

it("a mandatory rule the inputs break is a check failure with the rule, what it saw and the fix; an advisory one is not", async () => {
  const big = await check("Cube", cubeInputs("prod-web", { resources: { vcpu: 4, ramGb: 4, diskGb: 20 } }));
  expect(big.failures).toEqual([
    {
      property: "resources.vcpu",
      reason: `policy small-prod (mandatory, ${POLICY}:4:5): resources.vcpu is 4, over the maximum of 2; fix: set resources.vcpu to 2 or less`,
    },
  ]);
  // Not matched by the rule's names; the advisory image rule never fails a check.
  expect((await check("Cube", cubeInputs("dev-web", { resources: { vcpu: 4, ramGb: 4, diskGb: 20 } }))).failures).toEqual([]);
  const open = await check("TcpMapping", { cubeId: "cube_1", cubePort: 5432, udp: false });
  expect(open.failures).toEqual([
    expect.objectContaining({ property: "allow", reason: expect.stringContaining("policy no-open-ports (mandatory") }),
  ]);
  expect((await check("TcpMapping", { cubeId: "cube_1", cubePort: 5432, udp: false, allow: ["203.0.113.0/24"] })).failures).toEqual([]);
});
