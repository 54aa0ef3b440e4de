/**
 * The lock of a space (issue 10 item 3): a run that finds the lock held names its holder, so the
 * file must never be seen empty or half-written, however the two runs interleave.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { expect, test } from "vitest";
import { acquireSpaceLock, lockPathFor } from "../../reconciler/session/space-lock.js";

// Another run polling the lock file as fast as it can, on its own thread.
const POLLER = `
const { readFileSync } = require("node:fs");
const { parentPort, workerData } = require("node:worker_threads");
let stop = false, reads = 0;
const unreadable = [];
parentPort.on("message", () => { stop = true; });
parentPort.postMessage("polling");
(function poll() {
  for (let i = 0; i < 2000; i++) {
    let text;
    try { text = readFileSync(workerData, "utf8"); reads++; } catch { continue; }
    if (!/"pid":\\d+/.test(text)) unreadable.push(text);
  }
  if (stop) parentPort.postMessage({ reads, unreadable }); else setImmediate(poll);
})();
`;

test("whenever the lock file exists it names its holder (pid, host, command), and releasing leaves no file behind", async () => {
  const lockDir = mkdtempSync(join(tmpdir(), "cubeform-lock-"));
  const request = { lockDir, origin: "http://127.0.0.1:1", spaceId: "s1", command: "apply", cwd: "/work", timeoutMs: 5_000 };
  const path = lockPathFor(lockDir, request.origin, request.spaceId);
  const poller = new Worker(POLLER, { eval: true, workerData: path });
  await new Promise((resolve) => poller.once("message", resolve));
  for (let round = 0; round < 300; round++) {
    const lock = await acquireSpaceLock(request);
    await new Promise(setImmediate);
    await lock.release();
  }
  poller.postMessage("stop");
  const seen = await new Promise<{ reads: number; unreadable: string[] }>((resolve) => poller.once("message", resolve));
  await poller.terminate();
  expect(seen.reads).toBeGreaterThan(0);
  expect(seen.unreadable).toEqual([]);
  expect(readdirSync(lockDir)).toEqual([]);
});
