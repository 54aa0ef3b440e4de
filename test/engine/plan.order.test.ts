import { describe, expect, test } from "vitest";
import { diff, stepPhase } from "../../engine/index.js";
import { cube, desired, domain, live, mapping, observed, spec, sshMapping } from "./fixtures.js";

describe("plan: step order", () => {
  test("phases: unprotect, sub-resource deletions, cube deletions, creations, per-cube settings, power and protect, waits", () => {
    const keep = cube("keep", { state: "stopped" });
    const old = cube("old", { terminationProtection: true });
    const gone = cube("gone");
    const plan = diff(
      desired(
        [
          spec("keep", {
            power: "running",
            terminationProtection: true,
            sshPort: 2200,
            domains: [
              { hostname: "b.example.com", port: 80, settings: { originScheme: "https" } },
              { hostname: "c.example.com", port: 80, settings: {} },
            ],
            ports: [{ cubePort: 6000, udp: true, allow: [] }],
          }),
          spec("old", {
            image: "debian-13",
            terminationProtection: false,
            domains: [{ hostname: "a.example.com", port: 80, settings: {} }],
          }),
          spec("fresh", { power: "stopped" }),
        ],
        true,
      ),
      observed([
        live(keep, {
          domains: [domain(keep.id, "b.example.com", { port: 80 }), domain(keep.id, "z.example.com")],
          tcpMappings: [sshMapping(keep.id), mapping(keep.id, 5000)],
        }),
        live(old, { domains: [domain(old.id, "a.example.com", { port: 80 })] }),
        live(gone),
      ]),
      { allowReplace: true },
    );
    expect(plan.steps.map((s) => `${stepPhase(s)} ${s.op} ${s.address}`)).toMatchInlineSnapshot(`
      [
        "1 set-protection cube/old",
        "2 detach-domain cube/keep/domain/z.example.com",
        "2 delete-port cube/keep/port/5000",
        "3 delete-cube cube/old",
        "3 wait-deleted cube/old",
        "3 delete-cube cube/gone",
        "3 wait-deleted cube/gone",
        "4 create-cube cube/old",
        "4 create-cube cube/fresh",
        "5 set-ssh-port cube/keep",
        "5 patch-domain cube/keep/domain/b.example.com",
        "5 attach-domain cube/keep/domain/c.example.com",
        "5 create-port cube/keep/port/6000",
        "5 attach-domain cube/old/domain/a.example.com",
        "6 wake cube/keep",
        "6 set-protection cube/keep",
        "6 power-off cube/fresh",
        "7 wait-running cube/keep",
        "7 wait-running cube/old",
      ]
    `);
    const phases = plan.steps.map(stepPhase);
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
  });
});
