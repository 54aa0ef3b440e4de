import { blockedReason } from "../../reconciler/hints.js";
import { describe, expect, test } from "vitest";
import { diff } from "../../engine/index.js";
import { cube, desired, domain, live, mapping, observed, spec } from "./fixtures.js";

const web = cube("web");

describe("diff: replacements", () => {
  test("an image change is a blocked replacement unless allowed, with the way to allow it", () => {
    const plan = diff(desired([spec("web", { image: "debian-13" })]), observed([live(web)]));
    const [change] = plan.changes;
    expect(change?.action).toBe("delete-then-create");
    expect(change?.changes).toEqual([{ path: "image", before: "ubuntu-24.04", after: "debian-13", forcesReplace: true }]);
    expect(change?.blocked?.code).toBe("replace_not_allowed");
    expect(change?.blocked?.reason).toContain("lifecycle.allowReplace: true");
    // The engine names no CLI flag; the CLI adds its own.
    expect(change?.blocked?.reason).not.toContain("--allow-replace");
    expect(blockedReason(change!.blocked!)).toMatch(/to allow it \(or pass --allow-replace\)$/);
    expect(plan.steps).toEqual([]);
    expect(plan.summary).toMatchObject({ blocked: 1, replace: 0, add: 0, destroy: 0 });
  });

  test("an allowed replacement deletes, waits, then creates, and re-creates the domains and ports without detaching them", () => {
    const state = observed([live(web, { domains: [domain(web.id, "app.example.com")], tcpMappings: [mapping(web.id, 5432)] })]);
    const file = desired([
      spec("web", {
        resources: { vcpu: 2, ramGb: 2, diskGb: 20 },
        domains: [{ hostname: "app.example.com", port: 8080, settings: {} }],
        ports: [{ cubePort: 5432, udp: true, allow: [] }],
      }),
    ]);
    for (const plan of [
      diff(file, state, { allowReplace: true }),
      diff({ ...file, cubes: file.cubes.map((c) => ({ ...c, lifecycle: { ...c.lifecycle, allowReplace: true } })) }, state),
    ]) {
      expect(plan.steps.map((s) => `${s.op} ${s.address}`)).toEqual([
        "delete-cube cube/web",
        "wait-deleted cube/web",
        "create-cube cube/web",
        "attach-domain cube/web/domain/app.example.com",
        "create-port cube/web/port/5432",
        "wait-running cube/web",
      ]);
      expect(plan.steps[0]).toMatchObject({ cube: { cubeName: "web", cubeId: web.id } });
      expect(plan.steps[3]).toMatchObject({ cube: { cubeName: "web", cubeId: null } });
      const addresses = ["cube/web", "cube/web/domain/app.example.com", "cube/web/port/5432"];
      expect(plan.changes.map((c) => [c.address, c.action])).toEqual(addresses.map((address) => [address, "delete-then-create"]));
      expect(plan.summary).toMatchObject({ replace: 3, add: 3, destroy: 3, mutations: 4 });
    }
  });

  test("region is compared only when the live cube reports it", () => {
    const file = desired([spec("web", { region: "eu-helsinki" })]);
    expect(diff(file, observed([live(web)])).steps).toEqual([]);
    const plan = diff(file, observed([live(cube("web", { region: "eu-nuremberg" }))]), { allowReplace: true });
    expect(plan.changes[0]?.changes).toEqual([{ path: "region", before: "eu-nuremberg", after: "eu-helsinki", forcesReplace: true }]);
  });

  test("fields in lifecycle.ignoreChanges are not compared", () => {
    const plan = diff(
      desired([
        spec("web", {
          image: "debian-13",
          resources: { vcpu: 4, ramGb: 8, diskGb: 50 },
          power: "stopped",
          lifecycle: { allowReplace: false, ignoreChanges: ["image", "resources", "power"] },
        }),
      ]),
      observed([live(web)]),
    );
    expect(plan.changes[0]?.action).toBe("noop");
    expect(plan.steps).toEqual([]);
  });

  test("sshPublicKey and userData are not compared by the fleet diff (the API cannot show them)", () => {
    const plan = diff(desired([spec("web", { sshPublicKey: "ssh-rsa AAAA other", userData: "changed" })]), observed([live(web)]));
    expect(plan.changes[0]?.action).toBe("noop");
  });
});
