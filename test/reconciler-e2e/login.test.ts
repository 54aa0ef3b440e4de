/**
 * `cubeform login` (the API's device login, RFC 8628) through the bin against the emulator,
 * and credentials read from the krova CLI's config file (live-api-facts.md §10).
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { validateResponse } from "../support/openapi.js";
import { describeRun, project, RATE, SSH_KEY, tempDir, waitFor } from "./support.js";

/** No key in the environment: only the config file may supply one. */
const NO_KEY = { CUBE_API_KEY: "", CUBE_API_URL: "" };

describe("cubeform login and the krova config file", () => {
  test("§10: login shows a code; once approved it saves a context (0600 in 0700) that later commands use with no variable", async () => {
    const p = await project();
    const config = tempDir();
    const env = { ...NO_KEY, XDG_CONFIG_HOME: config };
    const child = p.start(["login", "--base-url", p.emu.url], env);
    const userCode = await waitFor(() => /confirm the code (KROVA-[A-Z]{4}-[A-Z]{4})/.exec(child.stderr())?.[1], {
      timeoutMs: 20_000,
      message: "the user code",
    });
    expect(child.stderr()).toContain(`${p.emu.origin}/__emulator/device?code=${userCode}`);
    p.emu.admin.answerDeviceLogin({ userCode, spaceId: p.emu.spaceId });
    const done = await child.exited;
    expect(done.code, describeRun(done)).toBe(0);
    const file = join(config, "krova", "config.json");
    expect(done.stdout).toContain(`Logged in to space "Emulated space" (${p.emu.spaceId}). Saved as context "default" in ${file}.`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, "krova")).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved).toMatchObject({
      currentContext: "default",
      contexts: [{ name: "default", spaceId: p.emu.spaceId, spaceName: "Emulated space", baseUrl: p.emu.url }],
    });
    expect(saved.contexts[0].apiKey).toMatch(/^kro_/);
    expect(done.stdout + done.stderr).not.toContain(saved.contexts[0].apiKey);
    const list = await p.run(["cube", "list", ...RATE], env);
    expect(list.code, describeRun(list)).toBe(0);
    expect(list.stdout).toContain("No cubes in this space.");
  });

  test("§10: KROVA_CONTEXT picks a context; an older single-key file is the context 'default'; variables win over the file", async () => {
    const p = await project();
    const other = p.emu.admin.createSpace({ name: "other" });
    const config = tempDir();
    mkdirSync(join(config, "krova"), { mode: 0o700 });
    const file = join(config, "krova", "config.json");
    writeFileSync(
      file,
      JSON.stringify({
        currentContext: "main",
        contexts: [
          { name: "main", apiKey: p.emu.apiKey, baseUrl: p.emu.url },
          { name: "other", apiKey: other.ownerKey, baseUrl: p.emu.url },
        ],
      }),
      { mode: 0o600 },
    );
    await p.api.createCube(
      { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
      { idempotencyKey: "c1" },
    );
    const cubesSeen = async (env: Record<string, string>) => {
      const run = await p.run(["cube", "list", "--format", "json", ...RATE], { XDG_CONFIG_HOME: config, ...env });
      expect(run.code, describeRun(run)).toBe(0);
      return (JSON.parse(run.stdout) as unknown[]).length;
    };
    expect(await cubesSeen(NO_KEY)).toBe(1);
    expect(await cubesSeen({ ...NO_KEY, KROVA_CONTEXT: "other" })).toBe(0);
    const missing = await p.run(["cube", "list", ...RATE], { ...NO_KEY, XDG_CONFIG_HOME: config, KROVA_CONTEXT: "nope" });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${file} has no context "nope" (from KROVA_CONTEXT); contexts: main, other`);
    writeFileSync(file, JSON.stringify({ apiKey: other.ownerKey, baseUrl: p.emu.url }), { mode: 0o600 });
    expect(await cubesSeen(NO_KEY)).toBe(0);
    // The variables (the project's own key) win over the file.
    expect(await cubesSeen({})).toBe(1);
  });

  test("§10: a config file other users can read is refused with the chmod to run; no file and no variable names `cubeform login`", async () => {
    const p = await project();
    const config = tempDir();
    mkdirSync(join(config, "krova"), { mode: 0o700 });
    const file = join(config, "krova", "config.json");
    writeFileSync(file, JSON.stringify({ currentContext: "main", contexts: [{ name: "main", apiKey: p.emu.apiKey, baseUrl: p.emu.url }] }));
    chmodSync(file, 0o644);
    const open = await p.run(["cube", "list", ...RATE], { ...NO_KEY, XDG_CONFIG_HOME: config });
    expect(open.code).toBe(1);
    expect(open.stderr).toContain(`${file} holds API keys but other users can read it (mode 0644); run: chmod 600 ${file}`);
    const none = await p.run(["cube", "list", ...RATE], { ...NO_KEY, XDG_CONFIG_HOME: tempDir() });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/No API key: .*run `cubeform login`/);
  });

  test("reference /auth/cli/poll: 428 while pending, 403 once denied, 410 for an unknown code; approved → {apiKey, spaceId} once, valid against the reference", async () => {
    const p = await project();
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(`${p.emu.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as { deviceCode: string; userCode: string } };
    };
    const started = await post("/auth/cli/start");
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ userCode: expect.stringMatching(/^KROVA-/), interval: 1, expiresIn: 600 });
    expect(validateResponse("POST", "/auth/cli/start", 200, started.body)).toEqual([]);
    expect((await post("/auth/cli/poll", { deviceCode: started.body.deviceCode })).status).toBe(428);
    p.emu.admin.answerDeviceLogin({ userCode: started.body.userCode, approve: false });
    expect((await post("/auth/cli/poll", { deviceCode: started.body.deviceCode })).status).toBe(403);
    expect((await post("/auth/cli/poll", { deviceCode: "nope" })).status).toBe(410);
    expect((await post("/auth/cli/poll", {})).status).toBe(400);
    const approved = await post("/auth/cli/start");
    p.emu.admin.answerDeviceLogin({ userCode: approved.body.userCode, spaceId: p.emu.spaceId });
    const minted = await post("/auth/cli/poll", { deviceCode: approved.body.deviceCode });
    expect(minted.status).toBe(200);
    expect(minted.body).toEqual({ apiKey: expect.stringMatching(/^kro_/), spaceId: p.emu.spaceId });
    expect(validateResponse("POST", "/auth/cli/poll", 200, minted.body)).toEqual([]);
    expect((await post("/auth/cli/poll", { deviceCode: approved.body.deviceCode })).status).toBe(410);
  });
});
