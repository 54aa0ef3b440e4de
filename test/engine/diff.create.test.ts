import { describe, expect, test } from "vitest";
import { diff } from "../../engine/index.js";
import { cube, desired, domain, live, mapping, observed, sshMapping, spec } from "./fixtures.js";

describe("diff: creating and converged fleets", () => {
  test("a declared cube that does not exist is created with its domains and ports, then waited for", () => {
    const plan = diff(
      desired([
        spec("web", {
          region: "eu-nuremberg",
          userData: "#cloud-config\n",
          terminationProtection: true,
          sshPort: 2222,
          domains: [{ hostname: "app.example.com", port: 8080, settings: { originScheme: "https" } }],
          ports: [{ cubePort: 5432, udp: false, allow: [] }],
        }),
      ]),
      observed([]),
    );
    expect(plan.steps.map((s) => `${s.op} ${s.address}`)).toEqual([
      "create-cube cube/web",
      "set-ssh-port cube/web",
      "attach-domain cube/web/domain/app.example.com",
      "create-port cube/web/port/5432",
      "wait-running cube/web",
    ]);
    const create = plan.steps[0];
    expect(create).toMatchObject({
      op: "create-cube",
      cube: { cubeName: "web", cubeId: null },
      body: { name: "web", image: "ubuntu-24.04", region: "eu-nuremberg", userData: "#cloud-config\n", terminationProtection: true },
    });
    expect(plan.steps[3]).toEqual({
      op: "create-port",
      address: "cube/web/port/5432",
      cube: { cubeName: "web", cubeId: null },
      body: { cubePort: 5432, udp: false, allow: [] },
    });
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ["cube/web", "create"],
      ["cube/web/domain/app.example.com", "create"],
      ["cube/web/port/5432", "create"],
    ]);
    expect(plan.summary).toMatchObject({ add: 3, change: 0, destroy: 0, mutations: 4 });
  });

  test("terminationProtection is left out of the create body unless it is true", () => {
    const plan = diff(desired([spec("a", { terminationProtection: false }), spec("b")]), observed([]));
    for (const step of plan.steps) if (step.op === "create-cube") expect(step.body).not.toHaveProperty("terminationProtection");
  });

  test("a new cube declared stopped is powered off (the executor waits for it to run) and not waited for", () => {
    const plan = diff(desired([spec("a", { power: "stopped", sshPort: 22 })]), observed([]));
    expect(plan.steps.map((s) => s.op)).toEqual(["create-cube", "power-off"]);
  });

  test("a fleet that matches its file plans nothing", () => {
    const c = cube("web", { terminationProtection: true });
    const state = observed([
      live(c, {
        domains: [domain(c.id, "app.example.com", { ipAllowList: ["10.0.0.0/8", "192.168.0.0/16"] })],
        tcpMappings: [sshMapping(c.id, 2222), mapping(c.id, 5432, { allow: ["1.2.3.4/32"], label: "pg" })],
      }),
    ]);
    const plan = diff(
      desired([
        spec("web", {
          terminationProtection: true,
          power: "running",
          sshPort: 2222,
          domains: [
            {
              hostname: "app.example.com",
              port: 8080,
              settings: {
                ipAllowList: ["192.168.0.0/16", "10.0.0.0/8"],
                securityHeadersMode: "enforced",
                corsConfig: null,
                responseHeaderOverrides: {},
              },
            },
          ],
          ports: [{ cubePort: 5432, udp: true, allow: ["1.2.3.4/32"], label: "pg" }],
        }),
      ]),
      state,
    );
    expect(plan.steps).toEqual([]);
    expect(plan.changes.every((c) => c.action === "noop" && c.changes.length === 0)).toBe(true);
    expect(plan.changes.every((c) => JSON.stringify(c.before) === JSON.stringify(c.after))).toBe(true);
    expect(plan.summary).toEqual({
      add: 0,
      change: 0,
      destroy: 0,
      replace: 0,
      blocked: 0,
      unmanaged: 0,
      mutations: 0,
      estimatedSeconds: 0,
    });
  });

  test("the plan is JSON as it is", () => {
    const plan = diff(desired([spec("web", { domains: [{ hostname: "a.example.com", port: 80, settings: {} }] })]), observed([]));
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });
});
