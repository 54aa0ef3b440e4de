/**
 * A resumed download continues FILE.part only with bytes that belong there: a 206 is written
 * where its Content-Range starts, a 206 that would leave a gap or a 200 to a ranged request
 * starts the file over, and the result is always the archive itself (issue 20 #1, #2).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { downloadArchive, partFileOf } from "../../client/download.js";

const partRecordFileOf = (file: string): string => `${file}.part.json`;

const ARCHIVE = randomBytes(100_000);
const ETAG = '"v1"';
const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** How the storage answers `Range: bytes=N-`: the start it sends instead of N. */
type Answer = (asked: number) => number;

interface Storage {
  url: string;
  ranges: (string | undefined)[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function storage(answer: Answer): Promise<Storage> {
  const ranges: (string | undefined)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    ranges.push(req.headers.range);
    const asked = /^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1];
    const honoured = asked !== undefined && (req.headers["if-range"] === undefined || req.headers["if-range"] === ETAG);
    if (!honoured) {
      res.writeHead(200, { etag: ETAG, "content-length": ARCHIVE.length }).end(ARCHIVE);
      return;
    }
    const start = answer(Number(asked));
    res.writeHead(206, {
      etag: ETAG,
      "content-range": `bytes ${start}-${ARCHIVE.length - 1}/${ARCHIVE.length}`,
      "content-length": ARCHIVE.length - start,
    });
    res.end(ARCHIVE.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/__storage/backups/bkp_1?sig=x`, ranges };
}

/** FILE.part holding the archive's first `bytes`, recorded as backup bkp_1 with the given ETag. */
function interruptedDownload(bytes: number, etag = ETAG): string {
  const file = join(mkdtempSync(join(tmpdir(), "cubeform-resume-")), "latest.cube");
  writeFileSync(partFileOf(file), ARCHIVE.subarray(0, bytes));
  writeFileSync(partRecordFileOf(file), JSON.stringify({ objectId: "bkp_1", etag, lastModified: null, total: ARCHIVE.length }));
  return file;
}

function linkTo(server: Storage) {
  return async () => ({
    url: server.url,
    filename: "latest.cube",
    sizeBytes: ARCHIVE.length,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
}

describe("resuming FILE.part", () => {
  test("the same object resumes with Range and If-Range, and only the missing bytes are fetched", async () => {
    const server = await storage((asked) => asked);
    const file = interruptedDownload(40_000);
    const result = await downloadArchive(linkTo(server), file, { objectId: "bkp_1" });
    expect(result).toMatchObject({ bytes: ARCHIVE.length, resumedFrom: 40_000 });
    expect(result.startedOver).toBeUndefined();
    expect(server.ranges).toEqual(["bytes=40000-"]);
    expect(sha256(readFileSync(file))).toBe(sha256(ARCHIVE));
  });

  test("#2: a 206 that starts earlier than asked is written where it starts: the file is the archive, not longer", async () => {
    const server = await storage((asked) => asked - 25_000);
    const file = interruptedDownload(40_000);
    const result = await downloadArchive(linkTo(server), file, { objectId: "bkp_1" });
    expect(result.bytes).toBe(ARCHIVE.length);
    expect(result.resumedFrom).toBe(15_000);
    expect(sha256(readFileSync(file))).toBe(sha256(ARCHIVE));
  });

  test("#2: a 206 that starts later than asked (a gap) starts over and says why", async () => {
    const server = await storage((asked) => asked + 20_000);
    const file = interruptedDownload(40_000);
    const reasons: string[] = [];
    const result = await downloadArchive(linkTo(server), file, { objectId: "bkp_1", onStartOver: (reason) => reasons.push(reason) });
    expect(reasons).toEqual([expect.stringContaining("answered bytes from 60000 when 40000 were asked for")]);
    expect(result).toMatchObject({ bytes: ARCHIVE.length, resumedFrom: 0 });
    expect(server.ranges).toEqual(["bytes=40000-", undefined]);
    expect(sha256(readFileSync(file))).toBe(sha256(ARCHIVE));
  });

  test("#1: a storage whose object changed (If-Range does not match) sends it whole: the file starts over", async () => {
    const server = await storage((asked) => asked);
    const file = interruptedDownload(40_000, '"v0"');
    const result = await downloadArchive(linkTo(server), file, { objectId: "bkp_1" });
    expect(result.startedOver).toContain("sent the whole archive again instead of the bytes from 40000");
    expect(result.resumedFrom).toBe(0);
    expect(sha256(readFileSync(file))).toBe(sha256(ARCHIVE));
  });

  test("#1: a .part of another backup, or one with no record, is not resumed at all", async () => {
    const server = await storage((asked) => asked);
    const file = interruptedDownload(40_000);
    const other = await downloadArchive(linkTo(server), file, { objectId: "bkp_2" });
    expect(other.startedOver).toContain("it holds another backup (bkp_1)");
    const bare = join(mkdtempSync(join(tmpdir(), "cubeform-resume-")), "bare.cube");
    writeFileSync(partFileOf(bare), Buffer.alloc(40_000, 7));
    const unrecorded = await downloadArchive(linkTo(server), bare, { objectId: "bkp_1" });
    expect(unrecorded.startedOver).toContain("there is no record of which backup it holds");
    expect(server.ranges).toEqual([undefined, undefined]);
    for (const path of [file, bare]) {
      expect(sha256(readFileSync(path))).toBe(sha256(ARCHIVE));
      expect(existsSync(partRecordFileOf(path))).toBe(false);
    }
  });
});
