/** .cube imports (reference OpenAPI "Imports"): initiate, part uploads, complete, cancel. */
import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { validateRequest, validateResponse } from "../support/openapi.js";
import { SSH_KEY, test, type Api } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

const MIB = 1024 * 1024;
const IMPORTS = "/spaces/{spaceId}/cubes/imports";
const CONFIG = { vcpus: 1, ramMb: 1024, diskLimitGb: 10, imageId: "ubuntu-24.04" };

const imports = (api: Api, suffix = "") => `/cubes/imports${suffix}`;

async function start(api: Api, size: number, extra: Record<string, unknown> = {}) {
  const body = { name: "restored", fileSizeBytes: size, sshPublicKey: SSH_KEY, ...extra };
  const result = await api.call("POST", imports(api), body);
  if (result.status !== 201) throw new Error(`start: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

async function put(url: string, bytes: Buffer): Promise<{ status: number; etag: string | null; body: string }> {
  const response = await fetch(url, { method: "PUT", body: bytes });
  return { status: response.status, etag: response.headers.get("etag"), body: await response.text() };
}

async function uploadAll(started: { chunkSizeBytes: number; parts: { partNumber: number; url: string }[] }, archive: Buffer) {
  const parts = [];
  for (const part of started.parts) {
    const bytes = archive.subarray((part.partNumber - 1) * started.chunkSizeBytes, part.partNumber * started.chunkSizeBytes);
    const { status, etag } = await put(part.url, bytes);
    expect(status).toBe(200);
    parts.push({ partNumber: part.partNumber, etag: etag! });
  }
  return parts;
}

describe("imports", () => {
  test("reference: initiate → part URLs; each PUT answers an ETag; complete → provisioning; the cube boots and the import completes", async ({
    api,
  }) => {
    const archive = randomBytes(3 * MIB + 5);
    const body = { name: "restored", fileSizeBytes: archive.length, sshPublicKey: SSH_KEY };
    expect(validateRequest("POST", IMPORTS, body)).toEqual([]);
    const created = await api.call("POST", imports(api), body);
    expect(created.status).toBe(201);
    expect(validateResponse("POST", IMPORTS, 201, created.body)).toEqual([]);
    expect(created.body).toMatchObject({
      chunkSizeBytes: MIB,
      parts: [{ partNumber: 1 }, { partNumber: 2 }, { partNumber: 3 }, { partNumber: 4 }],
    });
    const pending = await api.call("GET", imports(api, `/${created.body.importId}`));
    expect(validateResponse("GET", `${IMPORTS}/{importId}`, 200, pending.body)).toEqual([]);
    expect(pending.body.import).toMatchObject({ id: created.body.importId, name: "restored", status: "uploading", cubeId: null });
    const parts = await uploadAll(created.body, archive);
    const complete = { parts, config: CONFIG };
    expect(validateRequest("POST", `${IMPORTS}/{importId}/complete`, complete)).toEqual([]);
    const done = await api.call("POST", imports(api, `/${created.body.importId}/complete`), complete);
    expect(done.status).toBe(200);
    expect(validateResponse("POST", `${IMPORTS}/{importId}/complete`, 200, done.body)).toEqual([]);
    expect(done.body).toEqual({ importId: created.body.importId, cubeId: expect.stringMatching(/^cube_/), status: "provisioning" });
    const cube = await api.waitForState(done.body.cubeId, "running");
    expect(cube).toMatchObject({ name: "restored", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 } });
    const finished = await waitFor(async () => {
      const now = (await api.call("GET", imports(api, `/${created.body.importId}`))).body.import;
      return now.status === "complete" ? now : undefined;
    });
    expect(finished).toMatchObject({ cubeId: done.body.cubeId, completedAt: expect.any(String) });
    expect((await api.call("DELETE", imports(api, `/${created.body.importId}`))).status).toBe(409);
  });

  test("routes: `imports` is never read as a cube id (no 405, no 'Cube not found')", async ({ api }) => {
    const started = await start(api, MIB);
    expect((await api.call("GET", imports(api, `/${started.importId}`))).status).toBe(200);
    expect((await api.call("GET", "/cubes/imports")).status).toBe(405);
    expect((await api.call("GET", "/cubes/imp_nope/ssh")).body.error).toBe("Cube not found");
  });

  test("wrong ETag, missing part, wrong part size, unknown image: clear 400s and nothing is created", async ({ api }) => {
    const archive = randomBytes(2 * MIB + 1);
    const started = await start(api, archive.length);
    const tooShort = await put(started.parts[0].url, archive.subarray(0, 100));
    expect(tooShort.status).toBe(400);
    expect(JSON.parse(tooShort.body).error).toBe(`Part 1 must be ${MIB} bytes; got 100`);
    const parts = await uploadAll(started, archive);
    const path = imports(api, `/${started.importId}/complete`);
    const wrong = await api.call("POST", path, {
      parts: parts.map((p) => (p.partNumber === 2 ? { ...p, etag: '"0000"' } : p)),
      config: CONFIG,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("parts: the ETag of part 2 does not match the uploaded part");
    const missing = await api.call("POST", path, { parts: parts.slice(0, 2), config: CONFIG });
    expect(missing.body.error).toBe("parts: missing part 3 of 3");
    const image = await api.call("POST", path, { parts, config: { ...CONFIG, imageId: "windows-95" } });
    expect(image.body.error).toMatch(/config\.imageId: unknown image "windows-95"/);
    expect((await api.call("GET", "/cubes")).body.cubes).toEqual([]);
    expect((await api.call("GET", imports(api, `/${started.importId}`))).body.import.status).toBe("uploading");
  });

  test("an upload not completed in time expires: complete is a 409, parts are refused, nothing is created", async ({ api, emu }) => {
    const archive = randomBytes(MIB);
    const started = await start(api, archive.length);
    const parts = await uploadAll(started, archive);
    emu.admin.advanceClock(7 * 3600_000);
    const late = await api.call("POST", imports(api, `/${started.importId}/complete`), { parts, config: CONFIG });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatch(/expired/);
    expect((await put(started.parts[0].url, archive)).status).toBe(403);
    expect((await api.call("GET", imports(api, `/${started.importId}`))).body.import.status).toBe("expired");
    expect((await api.call("GET", "/cubes")).body.cubes).toEqual([]);
  });

  test("cancel (DELETE) while uploading leaves nothing: the import is gone and its part URLs refused", async ({ api }) => {
    const archive = randomBytes(MIB);
    const started = await start(api, archive.length);
    const canceled = await api.call("DELETE", imports(api, `/${started.importId}`));
    expect(canceled.body).toEqual({ success: true });
    expect(validateResponse("DELETE", `${IMPORTS}/{importId}`, 200, canceled.body)).toEqual([]);
    expect((await api.call("GET", imports(api, `/${started.importId}`))).status).toBe(404);
    expect((await put(started.parts[0].url, archive)).status).toBe(404);
  });

  test("initiate validates: name ≤ 64, fileSizeBytes ≥ 1 MiB, a key for sshKeyMode replace (keep needs none)", async ({ api }) => {
    const bad = async (body: Record<string, unknown>) =>
      (await api.call("POST", imports(api), { name: "x", fileSizeBytes: MIB, sshPublicKey: SSH_KEY, ...body })).body.error;
    expect(await bad({ name: "n".repeat(65) })).toMatch(/^name: /);
    expect(await bad({ fileSizeBytes: MIB - 1 })).toMatch(/^fileSizeBytes: /);
    expect(await bad({ sshPublicKey: undefined })).toMatch(/sshPublicKey is required when sshKeyMode is replace/);
    expect(await bad({ sshPublicKey: "not a key" })).toMatch(/not an OpenSSH public key/);
    expect((await api.call("POST", imports(api), { name: "x", fileSizeBytes: MIB, sshKeyMode: "keep" })).status).toBe(201);
  });
});
