/** check() over gRPC: every problem comes back as a per-property failure; unknown values pass. */
import { describe, expect, it } from "vitest";
import { UNKNOWN } from "./harness.js";
import { cubeInputs, stackForFile, type Stack } from "./support/stack.js";

let stack: Stack;
stackForFile((started) => (stack = started));

const check = (kind: "Cube" | "Domain" | "TcpMapping", inputs: Record<string, unknown>) =>
  stack.plugin.check(stack.urn(kind, "x"), undefined, stack.withProvider(kind, inputs));

describe("check", () => {
  it("reports every bad Cube input at once, by property", async () => {
    const { failures } = await check("Cube", {
      name: "-bad-",
      image: "",
      resources: { vcpu: 0, ramGb: 1.5, diskGb: 12 },
      sshPublicKey: "not a key",
      power: "sleeping",
      sshPort: 70000,
      colour: "blue",
    });
    const properties = failures.map((f) => f.property).sort();
    expect(properties).toEqual([
      "colour",
      "image",
      "name",
      "power",
      "resources.diskGb",
      "resources.ramGb",
      "resources.vcpu",
      "sshPort",
      "sshPublicKey",
    ]);
    expect(failures.find((f) => f.property === "resources.diskGb")?.reason).toMatch(/multiple of 5/);
  });

  it("names missing required inputs", async () => {
    const { failures } = await check("Cube", { name: "web" });
    expect(failures.map((f) => f.property).sort()).toEqual(["image", "resources", "sshPublicKey"]);
    expect(failures.find((f) => f.property === "image")?.reason).toBe("image is required");
  });

  it("accepts good inputs and returns them unchanged", async () => {
    const inputs = cubeInputs("web", { terminationProtection: true, power: "stopped", sshPort: 2222 });
    const result = await check("Cube", inputs);
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject(inputs);
  });

  it("does not judge values that are unknown during preview", async () => {
    expect((await check("Cube", cubeInputs("web", { resources: UNKNOWN, sshPort: UNKNOWN }))).failures).toEqual([]);
    expect((await check("TcpMapping", { cubeId: UNKNOWN, cubePort: UNKNOWN })).failures).toEqual([]);
    expect(
      (await check("Domain", { cubeId: UNKNOWN, hostname: "app.example.com", port: 8080, basicAuthPassword: UNKNOWN })).failures,
    ).toEqual([]);
  });

  it("reports bad Domain and TcpMapping inputs", async () => {
    const domain = await check("Domain", {
      cubeId: "c1",
      hostname: "App.Example.com",
      port: 0,
      responseHeaderTimeoutSecs: 5,
      ipAllowList: ["nope"],
    });
    expect(domain.failures.map((f) => f.property).sort()).toEqual(["hostname", "ipAllowList[0]", "port", "responseHeaderTimeoutSecs"]);
    const port = await check("TcpMapping", { cubeId: "", cubePort: 65536, allow: ["10.0.0.0/8", "x"], label: 7 });
    expect(port.failures.map((f) => f.property).sort()).toEqual(["allow[1]", "cubeId", "cubePort", "label"]);
  });

  it("refuses impossible addresses and CIDRs, and a basic-auth password without a user", async () => {
    const domain = await check("Domain", {
      cubeId: "c1",
      hostname: "app.example.com",
      port: 80,
      ipAllowList: ["1.2.3.4/33", "10.0.0.0/8"],
      ipDenyList: ["256.1.1.1"],
      basicAuthPassword: "secret-pass",
    });
    expect(domain.failures.map((f) => f.property).sort()).toEqual(["basicAuthPassword", "ipAllowList[0]", "ipDenyList[0]"]);
    expect(domain.failures.find((f) => f.property === "ipAllowList[0]")?.reason).toMatch(/prefix length is a whole number from 0 to 32/);
    const port = await check("TcpMapping", { cubeId: "c1", cubePort: 22, allow: ["2001:db8::/129", "300.1.1.1/40", "2001:db8::/64"] });
    expect(port.failures.map((f) => f.property).sort()).toEqual(["allow[0]", "allow[1]"]);
  });
});
