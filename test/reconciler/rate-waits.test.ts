/** The rate-limit notices: a countdown redrawn on a terminal, one plain line per wait elsewhere. */
import { Writable } from "node:stream";
import { afterEach, expect, test, vi } from "vitest";
import { rateWaitNotices } from "../../reconciler/session/rate-waits.js";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

const ERASE = "\r\x1b[2K";
const LIMIT = { limit: 10, windowMs: 60_000 };
const pacing = { reason: "pacing" as const, method: "POST", path: "/spaces/s1/cubes", waitMs: 3_000 };

afterEach(() => vi.useRealTimers());

test("on a terminal: a countdown line redrawn every second, erased when the wait ends", () => {
  vi.useFakeTimers();
  const out = new Capture();
  const notices = rateWaitNotices({ out, tty: true, rateLimit: LIMIT });
  notices.activity("create-cube cube/web");
  notices.started(pacing);
  expect(out.text).toBe(`${ERASE}Rate limit (10 mutations per 60 s): waiting 3 s before create-cube cube/web (POST /spaces/s1/cubes)…`);
  vi.advanceTimersByTime(1_000);
  expect(
    out.text.endsWith(`${ERASE}Rate limit (10 mutations per 60 s): waiting 2 s before create-cube cube/web (POST /spaces/s1/cubes)…`),
  ).toBe(true);
  vi.advanceTimersByTime(1_000);
  expect(out.text).toContain("waiting 1 s before");
  notices.ended();
  expect(out.text.endsWith(ERASE)).toBe(true);
  const written = out.text.length;
  vi.advanceTimersByTime(5_000);
  expect(out.text.length).toBe(written);
  expect(out.text).not.toContain("\n");
});

test("off a terminal: one plain line per wait; short pacing waits are not mentioned; a 429 always is", () => {
  const out = new Capture();
  const notices = rateWaitNotices({ out, tty: false, rateLimit: { limit: 1, windowMs: 2_000 } });
  notices.started(pacing);
  notices.ended();
  notices.started({ ...pacing, waitMs: 300 });
  notices.ended();
  notices.activity("attach-domain cube/web/domain/www.example.com");
  notices.started({ reason: "rate_limited", method: "POST", path: "/spaces/s1/cubes/c1/domains", waitMs: 12_000 });
  notices.ended();
  expect(out.text).toBe(
    "Rate limit (1 mutation per 2 s): waiting 3 s before POST /spaces/s1/cubes.\n" +
      "The API answered 429 (rate limited) to POST /spaces/s1/cubes/c1/domains: waiting 12 s before sending it again (attach-domain cube/web/domain/www.example.com).\n",
  );
});
