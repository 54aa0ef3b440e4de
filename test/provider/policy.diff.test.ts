/**
 * Issue 36 item 5: diff() judges the new inputs by the same policy files as check(), over gRPC as the engine drives it: a mandatory violation
 * fails the diff with the rule's message, an advisory one is a warning to the engine's log, sent once when check() and diff() of one step
 * both see it.
 */
import { expect, it } from "vitest";
import { usePolicyStack } from "./support/policy-stack.js";
import { cubeInputs } from "./support/stack.js";

const setup = usePolicyStack(`  - name: no-open-ports
    enforcement: mandatory
    deny: { portsOpenToInternet: true }
  - name: small
    enforcement: mandatory
    max: { vcpu: 2 }
  - name: debian-preferred
    enforcement: advisory
    allowed: { images: ["debian-*"] }
`);
const POLICY = setup.policy;

const ADVISORY = `Cube site: policy debian-preferred (advisory, ${POLICY}:10:5): image ubuntu-24.04 is not allowed; fix: use an allowed image: debian-*`;

it("a mandatory rule the new inputs break fails diff() with the rule's message; nothing is sent", { timeout: 120_000 }, async () => {
  const stack = setup.stack();
  const web = await stack.create("Cube", "web", cubeInputs("web", { image: "debian-13" }));
  const mutations = () => stack.emulator.admin.requests().filter((r) => r.mutating).length;
  const before = mutations();
  const bigger = stack.withProvider("Cube", { ...web.inputs, resources: { vcpu: 4, ramGb: 4, diskGb: 20 } });
  await expect(stack.plugin.diff(web.urn, web.id, web.outs, web.inputs, bigger)).rejects.toThrow(
    `policy small (mandatory, ${POLICY}:7:5): resources.vcpu is 4, over the maximum of 2; fix: set resources.vcpu to 2 or less`,
  );
  // Within the rules, the same diff answers as without policies.
  expect((await stack.plugin.diff(web.urn, web.id, web.outs, web.inputs, web.inputs)).changes).toBe(1);

  expect(mutations()).toBe(before);

  const pg = await stack.create("TcpMapping", "pg", { cubeId: web.id, cubePort: 5432, udp: false, allow: ["203.0.113.0/24"] });
  const created = mutations();
  const opened = stack.withProvider("TcpMapping", { ...pg.inputs, allow: [] });
  await expect(stack.plugin.diff(pg.urn, pg.id, pg.outs, pg.inputs, opened)).rejects.toThrow(
    `policy no-open-ports (mandatory, ${POLICY}:4:5): port 5432 has no allow list: open to the whole internet`,
  );
  expect(mutations()).toBe(created);
});

it("an advisory rule is a warning from diff() too, sent once when check() of the same step already sent it", {
  timeout: 120_000,
}, async () => {
  const stack = setup.stack();
  const engine = setup.engine();
  const site = await stack.create("Cube", "site", cubeInputs("site", { image: "debian-13" }));
  const warnings = () => engine.logs.filter((l) => l.message === ADVISORY).length;
  const ubuntu = cubeInputs("site", { image: "ubuntu-24.04" });
  // check() then diff(), as the engine runs a step: one warning.
  const diff = await stack.diff(site, ubuntu);
  expect(diff.replaces).toContain("image");
  expect(warnings()).toBe(1);
  expect(engine.logs.find((l) => l.message === ADVISORY)).toMatchObject({ severity: 2 });
  // diff() alone (its check's warning already met): it warns itself.
  const news = stack.withProvider("Cube", { ...site.inputs, image: "ubuntu-24.04" });
  await stack.plugin.diff(site.urn, site.id, site.outs, site.inputs, news);
  expect(warnings()).toBe(2);
});
