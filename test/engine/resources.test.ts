import { describe, expect, test } from "vitest";
import { planCubeResource, planDomainResource, planPortResource } from "../../engine/index.js";
import { cube, domain, live, mapping, spec } from "./fixtures.js";

const web = cube("web");

describe("per-resource planning (Pulumi)", () => {
  test("a Cube without live state is created; domains and ports are never its business", () => {
    const { change, steps } = planCubeResource({ news: spec("web", { domains: [{ hostname: "a.example.com", port: 80, settings: {} }] }) });
    expect(change.action).toBe("create");
    expect(steps.map((s) => s.op)).toEqual(["create-cube", "wait-running"]);
  });

  test("sshPublicKey and userData are compared with the previous inputs and force a replacement", () => {
    const olds = spec("web", { userData: "a" });
    const key = planCubeResource({
      olds,
      news: spec("web", { userData: "a", sshPublicKey: "ssh-rsa AAAA new" }),
      live: live(web),
      allowReplace: true,
    });
    expect(key.change).toMatchObject({ action: "delete-then-create", changes: [{ path: "sshPublicKey", forcesReplace: true }] });
    const userData = planCubeResource({ olds, news: spec("web", { userData: "b" }), live: live(web), allowReplace: true });
    expect(userData.change.changes).toEqual([{ path: "userData", before: "(sensitive)", after: "(sensitive)", forcesReplace: true }]);
    expect(JSON.stringify(userData.change)).not.toContain('"b"');
    expect(planCubeResource({ olds, news: olds, live: live(web) }).change.action).toBe("noop");
  });

  test("the same in-place rules as the fleet diff", () => {
    const { change, steps } = planCubeResource({ news: spec("web", { terminationProtection: true }), live: live(web) });
    expect(change.action).toBe("update");
    expect(steps).toEqual([{ op: "set-protection", address: "cube/web", cube: { cubeName: "web", cubeId: web.id }, value: true }]);
  });

  test("a Domain whose hostname changed is replaced, detach first", () => {
    const { change, steps } = planDomainResource({
      cubeId: web.id,
      cubeName: "web",
      news: { hostname: "new.example.com", port: 8080, settings: {} },
      live: domain(web.id, "old.example.com"),
    });
    expect(change.action).toBe("delete-then-create");
    expect(steps.map((s) => s.op)).toEqual(["detach-domain", "attach-domain"]);
  });

  test("a changed password is patched along with the user", () => {
    const { change, steps } = planDomainResource({
      cubeId: web.id,
      cubeName: "web",
      news: { hostname: "a.example.com", port: 8080, settings: { basicAuthUser: "admin" }, basicAuthPassword: { env: "P" } },
      live: domain(web.id, "a.example.com", { basicAuthUser: "admin" }),
      passwordChanged: true,
    });
    expect(change.action).toBe("update");
    expect(steps).toEqual([
      expect.objectContaining({ op: "patch-domain", body: { basicAuthUser: "admin" }, basicAuthPassword: { env: "P" } }),
    ]);
  });

  test("any TcpMapping field change is a replacement; no change is a noop", () => {
    const liveMapping = mapping(web.id, 5432, { allow: ["1.2.3.4/32"] });
    expect(
      planPortResource({ cubeId: web.id, cubeName: "web", news: { cubePort: 5432, udp: true, allow: ["1.2.3.4/32"] }, live: liveMapping })
        .change.action,
    ).toBe("noop");
    const { change, steps } = planPortResource({
      cubeId: web.id,
      cubeName: "web",
      news: { cubePort: 5432, udp: true, allow: [] },
      live: liveMapping,
    });
    expect(change.action).toBe("delete-then-create");
    expect(steps.map((s) => s.op)).toEqual(["delete-port", "create-port"]);
  });
});
