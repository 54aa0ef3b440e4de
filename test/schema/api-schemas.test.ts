import { describe, expect, it } from "vitest";
import { CreateCubeRequest, Cube, enveloped, listEnveloped } from "../../schema/index.js";

const cube = {
  id: "c1",
  name: "web",
  state: "resizing",
  publicIpv4: null,
  image: "ubuntu-24.04",
  sshUser: "ubuntu",
  resources: { vcpu: 1, ramGb: 0.5, diskGb: 10 },
  terminationProtection: false,
  terminationProtectionChangedAt: null,
  terminationProtectionChangedBy: null,
};

describe("API schemas", () => {
  it("accept the reference's states (resizing) and a fractional ramGb", () => {
    expect(Cube.parse(cube).resources.ramGb).toBe(0.5);
  });
  it("accept both the reference's envelope and the spec's bare cube", () => {
    const schema = enveloped("cube", Cube);
    expect(schema.parse({ cube }).id).toBe("c1");
    expect(schema.parse(cube).id).toBe("c1");
  });
  it("accept a paginated list envelope and a bare array", () => {
    const schema = listEnveloped("cubes", Cube);
    expect(schema.parse({ cubes: [cube], pagination: { page: 1, limit: 20, total: 1, totalPages: 1 } }).items).toHaveLength(1);
    expect(schema.parse([cube]).items).toHaveLength(1);
  });
  it("reject userData over 16 KB on create", () => {
    const body = {
      name: "web",
      image: "debian-13",
      resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
      sshPublicKey: "ssh-ed25519 AAAA",
      userData: "x".repeat(16 * 1024 + 1),
    };
    const result = CreateCubeRequest.safeParse(body);
    expect(result.success).toBe(false);
    expect(CreateCubeRequest.safeParse({ ...body, userData: "x".repeat(16 * 1024) }).success).toBe(true);
  });
});
