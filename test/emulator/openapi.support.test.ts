import { describe, expect, it } from "vitest";
import { matchPathTemplate, validateRequest, validateResponse } from "../support/openapi.js";

const cube = {
  id: "c",
  name: "n",
  state: "running",
  publicIpv4: null,
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
  image: "ubuntu-24.04",
  sshUser: "ubuntu",
  costPerHour: 0.01,
  terminationProtection: false,
  terminationProtectionChangedAt: null,
  terminationProtectionChangedBy: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("the reference OpenAPI validator used by the conformance tests", () => {
  it("accepts null where the reference says nullable, and rejects wrong types, enums and formats", () => {
    const template = "/spaces/{spaceId}/cubes/{cubeId}";
    expect(validateResponse("GET", template, 200, { cube })).toEqual([]);
    expect(validateResponse("GET", template, 200, { cube: { ...cube, publicIpv4: 7 } })).not.toEqual([]);
    expect(validateResponse("GET", template, 200, { cube: { ...cube, state: "sleeping" } })).not.toEqual([]);
    expect(validateResponse("GET", template, 200, { cube: { ...cube, createdAt: "yesterday" } })).not.toEqual([]);
    expect(validateResponse("GET", template, 200, {})).not.toEqual([]);
  });

  it("checks undocumented error statuses against the Error body and refuses undocumented successes", () => {
    expect(validateResponse("POST", "/spaces/{spaceId}/cubes/{cubeId}/tcp-mappings", 409, { error: "x" })).toEqual([]);
    expect(validateResponse("DELETE", "/spaces/{spaceId}/cubes/{cubeId}", 409, { error: { code: "termination_protected" } })).not.toEqual(
      [],
    );
    expect(validateResponse("GET", "/regions", 201, {})).not.toEqual([]);
    expect(validateResponse("GET", "/nope", 200, {})).not.toEqual([]);
  });

  it("matches concrete paths to templates, preferring literal segments", () => {
    expect(matchPathTemplate("GET", "/api/v1/spaces/s1/cubes/c1/ssh")).toBe("/spaces/{spaceId}/cubes/{cubeId}/ssh");
    expect(matchPathTemplate("POST", "http://127.0.0.1:1/api/v1/spaces/s1/cubes/imports?x=1")).toBe("/spaces/{spaceId}/cubes/imports");
    expect(matchPathTemplate("GET", "/spaces/s1/cubes/c1")).toBe("/spaces/{spaceId}/cubes/{cubeId}");
    expect(matchPathTemplate("PUT", "/spaces/s1/cubes/c1")).toBeUndefined();
  });

  it("validates request bodies", () => {
    expect(validateRequest("POST", "/spaces/{spaceId}/cubes/{cubeId}/tcp-mappings", { cubePort: 80 })).toEqual([]);
    expect(validateRequest("POST", "/spaces/{spaceId}/cubes/{cubeId}/tcp-mappings", { cubePort: "80" })).not.toEqual([]);
    expect(validateRequest("POST", "/spaces/{spaceId}/cubes", undefined)).toEqual(["a request body is required"]);
    expect(validateRequest("POST", "/spaces/{spaceId}/cubes/{cubeId}/power-off", { x: 1 })).not.toEqual([]);
  });
});
