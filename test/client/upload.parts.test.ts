/**
 * Multipart uploads (issue 7, client): bounded concurrency, a failed part retried on its own,
 * and an import whose parts did not all succeed is never completed (it is canceled).
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, onTestFinished, test } from "vitest";
import { createClient, uploadParts } from "../../client/index.js";
import { startEmulator } from "../../emulator/index.js";
import { startedImport } from "./support/server.js";

const MIB = 1024 * 1024;

function tempFile(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-upload-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "archive.cube");
  writeFileSync(file, bytes);
  return file;
}

/** A storage that answers 500 to the first `failures[n]` PUTs of part n, and records concurrency. */
async function flakyStorage(failures: Record<number, number>) {
  const attempts: Record<number, number> = {};
  const received: Record<number, Buffer> = {};
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const part = Number(/parts\/(\d+)/.exec(req.url ?? "")?.[1]);
    attempts[part] = (attempts[part] ?? 0) + 1;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () =>
      setTimeout(() => {
        inFlight--;
        if ((attempts[part] ?? 0) <= (failures[part] ?? 0)) return res.writeHead(500).end('{"error":"storage hiccup"}');
        received[part] = Buffer.concat(chunks);
        res.writeHead(200, { etag: `"etag-${part}"` }).end();
      }, 20),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, attempts, received, maxInFlight: () => maxInFlight };
}

describe("uploadParts", () => {
  test("sends every part with at most `concurrency` in flight; a failing part is retried on its own", async () => {
    const archive = randomBytes(5 * MIB + 3);
    const storage = await flakyStorage({ 2: 2 });
    const started = startedImport(6, MIB, (n) => `${storage.origin}/parts/${n}`);
    const progress: number[] = [];
    const parts = await uploadParts(tempFile(archive), archive.length, started, {
      concurrency: 2,
      sleep: async () => {},
      onProgress: (p) => progress.push(p.bytes),
    });
    expect(parts).toEqual(Array.from({ length: 6 }, (_, i) => ({ partNumber: i + 1, etag: `"etag-${i + 1}"` })));
    expect(storage.attempts).toEqual({ 1: 1, 2: 3, 3: 1, 4: 1, 5: 1, 6: 1 });
    expect(storage.maxInFlight()).toBeLessThanOrEqual(2);
    expect([1, 2, 3, 4, 5, 6].map((n) => storage.received[n]?.length)).toEqual([MIB, MIB, MIB, MIB, MIB, 3]);
    expect(Buffer.concat([1, 2, 3, 4, 5, 6].map((n) => storage.received[n]!)).equals(archive)).toBe(true);
    expect(progress.at(-1)).toBe(archive.length);
  });

  test("a part that keeps failing fails the upload, naming the part; the other parts are not all sent", async () => {
    const archive = randomBytes(3 * MIB);
    const storage = await flakyStorage({ 1: 99 });
    const started = startedImport(3, MIB, (n) => `${storage.origin}/parts/${n}`);
    await expect(
      uploadParts(tempFile(archive), archive.length, started, { concurrency: 1, maxPartAttempts: 3, sleep: async () => {} }),
    ).rejects.toThrow(/part 1 was refused \(HTTP 500\): storage hiccup/);
    expect(storage.attempts[1]).toBe(3);
    expect(storage.attempts[3]).toBeUndefined();
  });
});

describe("importArchive", () => {
  test("an import whose parts did not all succeed is canceled (DELETE), never completed: no cube", async () => {
    const emu = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
    onTestFinished(() => emu.close());
    const client = createClient({ baseUrl: emu.url, apiKey: emu.apiKey, rateLimit: { limit: 1000, windowMs: 60_000 } });
    onTestFinished(() => client.close());
    const file = tempFile(randomBytes(3 * MIB));
    let importId = "";
    const upload = client.importArchive(
      file,
      { name: "restored", sshKeyMode: "keep" },
      {
        idempotencyKey: "imp-1",
        config: { vcpus: 1, ramMb: 1024, diskLimitGb: 10, imageId: "ubuntu-24.04" },
        sleep: async () => {},
        // The archive shrinks after the import started: its last part can never be sent whole.
        onStarted: (started) => {
          importId = started.importId;
          truncateSync(file, 2 * MIB + 10);
        },
      },
    );
    await expect(upload).rejects.toThrow(/part 3/);
    await expect(client.getImport(importId)).rejects.toMatchObject({ code: "not_found" });
    expect(await client.listCubes()).toEqual([]);
    expect(emu.admin.requests().filter((r) => r.path.endsWith("/complete"))).toEqual([]);
    expect(emu.admin.requests().some((r) => r.method === "DELETE" && r.path.endsWith(`/imports/${importId}`) && r.status === 200)).toBe(
      true,
    );
  });
});
