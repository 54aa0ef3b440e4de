import { describe, expect, it } from "vitest";
import { createEmulatorApp } from "../../emulator/index.js";

describe("the emulator core without a socket (app.request)", () => {
  it("answers like fetch, with the same pipeline (auth, validation, faults)", async () => {
    const app = createEmulatorApp({ clockSpeed: 200 });
    try {
      const regions = await app.request("/api/v1/regions");
      expect(regions.status).toBe(200);
      expect(((await regions.json()) as { regions: unknown[] }).regions.length).toBeGreaterThan(0);
      expect((await app.request(`/api/v1/spaces/${app.spaceId}/cubes`)).status).toBe(401);
      const invalid = await app.request(`/api/v1/spaces/${app.spaceId}/cubes`, {
        method: "POST",
        headers: { "x-api-key": app.apiKey },
        body: "{}",
      });
      expect(invalid.status).toBe(400);
      app.admin.injectFault({ kind: "reset" });
      await expect(app.request("/api/v1/space", { headers: { "x-api-key": app.apiKey } })).rejects.toThrow(TypeError);
      expect((await app.request("/api/v1/space", { headers: { "x-api-key": app.apiKey } })).status).toBe(200);
      expect((await app.request("/api/v2/space")).status).toBe(404);
    } finally {
      app.close();
    }
  });
});
