import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { FileWindowStore, machineStateDir, MutationPacer, pacingFileFor, StoppedError } from "../../client/index.js";
import { fakeClock } from "./support/clock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-window-"));
  dirs.push(dir);
  return dir;
}

describe("the pacing window shared by the processes of one machine", () => {
  test("two pacers on one window file never grant more than the limit together", async () => {
    const clock = fakeClock();
    const file = pacingFileFor(tempDir(), "http://127.0.0.1:8123/api/v1");
    const options = { limit: 3, windowMs: 1000, marginMs: 0, now: clock.now, sleep: clock.sleep };
    const a = new MutationPacer({ ...options, store: new FileWindowStore(file) });
    const b = new MutationPacer({ ...options, store: new FileWindowStore(file) });
    const times: number[] = [];
    await Promise.all(
      [...Array.from({ length: 3 }, () => a.acquire()), ...Array.from({ length: 3 }, () => b.acquire())].map((p) =>
        p.then(() => times.push(clock.now())),
      ),
    );
    times.sort((x, y) => x - y);
    expect(times.slice(0, 3)).toEqual([0, 0, 0]);
    expect(times.slice(3).every((t) => t >= 1000)).toBe(true);
  });

  test("a plan made by a second process sees the first one's grants (the real wait)", async () => {
    const clock = fakeClock();
    const file = pacingFileFor(tempDir(), "https://krova.cloud/api/v1");
    const first = new MutationPacer({ limit: 10, windowMs: 60_000, now: clock.now, sleep: clock.sleep, store: new FileWindowStore(file) });
    await Promise.all(Array.from({ length: 10 }, () => first.acquire()));
    const second = new MutationPacer({ limit: 10, windowMs: 60_000, now: clock.now, sleep: clock.sleep, store: new FileWindowStore(file) });
    expect(second.estimateDurationMs(1)).toBe(61_200);
    const alone = new MutationPacer({ limit: 10, windowMs: 60_000, now: clock.now, sleep: clock.sleep });
    expect(alone.estimateDurationMs(1)).toBe(0);
  });

  test("one file per API origin: two emulators on different ports do not share", () => {
    const dir = tempDir();
    expect(pacingFileFor(dir, "http://127.0.0.1:1000/api/v1")).not.toBe(pacingFileFor(dir, "http://127.0.0.1:2000/api/v1"));
    expect(pacingFileFor(dir, "https://krova.cloud/api/v1")).toBe(pacingFileFor(dir, "https://krova.cloud/other"));
  });

  test("the state directory honours XDG_STATE_HOME, then HOME", () => {
    expect(machineStateDir({ XDG_STATE_HOME: "/x/state", HOME: "/home/u" })).toBe("/x/state/cubeform");
    expect(machineStateDir({ HOME: "/home/u" })).toBe("/home/u/.local/state/cubeform");
    expect(machineStateDir({ XDG_STATE_HOME: "relative", HOME: "/home/u" })).toBe("/home/u/.local/state/cubeform");
  });

  test("a waiter whose signal aborts is never granted: it fails with StoppedError and takes no slot", async () => {
    const clock = fakeClock();
    const pacer = new MutationPacer({ limit: 1, windowMs: 1000, now: clock.now, sleep: () => new Promise(() => undefined) });
    await pacer.acquire();
    const stop = new AbortController();
    const waiting = pacer.acquire({ signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toBeInstanceOf(StoppedError);
    expect(pacer.waiting).toBe(0);
  });
});
