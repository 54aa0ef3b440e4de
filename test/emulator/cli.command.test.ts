import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseRateLimit, runEmulatorCommand } from "../../emulator/cli.js";

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return { io: { stdout, stderr }, text: () => out };
}

describe("runEmulatorCommand (cubeform emulator)", () => {
  it("prints the base URL, the space, a generated key, and export lines", async () => {
    const { io, text } = capture();
    const { emulator, stop } = await runEmulatorCommand({}, io);
    try {
      expect(text()).toContain(`listening on ${emulator.url}`);
      expect(text()).toContain(`export CUBE_API_URL=${emulator.url}\n`);
      expect(text()).toContain(`export CUBE_SPACE_ID=${emulator.spaceId}\n`);
      expect(text()).toContain(emulator.apiKey);
      expect(emulator.apiKey).toMatch(/^kro_/);
    } finally {
      await stop();
    }
  });

  it("never echoes a key the user supplied; --space and --rate-limit are honoured", async () => {
    const { io, text } = capture();
    const { emulator, stop } = await runEmulatorCommand({ apiKey: "kro_user_supplied_secret", space: "spc_cli", rateLimit: "1/60" }, io);
    try {
      expect(text()).not.toContain("kro_user_supplied_secret");
      expect(emulator.spaceId).toBe("spc_cli");
      const post = () =>
        fetch(`${emulator.url}/spaces/spc_cli/cubes`, { method: "POST", headers: { "x-api-key": "kro_user_supplied_secret" }, body: "{}" });
      expect((await post()).status).toBe(400);
      const limited = await post();
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { error: string }).error).toMatch(/1 mutating requests per 60 seconds/);
    } finally {
      await stop();
    }
  });

  it("parses N/SECONDS and refuses anything else with a clear error", () => {
    expect(parseRateLimit("10/60")).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parseRateLimit("5/0.5")).toEqual({ limit: 5, windowMs: 500 });
    for (const bad of ["10", "0/60", "ten/60", "10/0", "10/-1", ""]) {
      expect(() => parseRateLimit(bad), bad).toThrow(/--rate-limit must look like N\/SECONDS/);
    }
  });
});
