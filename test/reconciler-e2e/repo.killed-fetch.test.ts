/**
 * Issue 31 item 5: a fetch killed by --git-timeout in the middle of a download leaves git's lock files (.git/shallow.lock) in
 * the cached clone. The next round must recover once the server is healthy, not fail on them forever. The server is
 * `git http-backend` on 127.0.0.1 that, while stalled, stops the pack after 64 KiB and holds the connection open.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, dirname, join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { testRepo } from "../support/git.js";
import { describeRun, plainFleet, startBin, tempDir } from "./support.js";

const STALL_AFTER = 64 * 1024;

/** http-backend for `bare`; while `stalled()`, an upload-pack answer longer than STALL_AFTER bytes stops there and never ends. */
async function stallingGitServer(
  bare: string,
  env: Record<string, string>,
  stalled: () => boolean,
): Promise<{ url: string; stalls: () => number }> {
  let stalls = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const cgi = spawn("git", ["http-backend"], {
      env: {
        ...env,
        GIT_PROJECT_ROOT: dirname(bare),
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        REMOTE_ADDR: "127.0.0.1",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    res.on("close", () => cgi.kill("SIGKILL"));
    req.pipe(cgi.stdin);
    const stall = stalled() && url.pathname.endsWith("/git-upload-pack");
    let head = Buffer.alloc(0);
    let sent = -1;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (sent < 0) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        const headers: Record<string, string> = {};
        for (const line of head.subarray(0, end).toString("latin1").split("\r\n"))
          headers[line.slice(0, line.indexOf(":")).trim()] = line.slice(line.indexOf(":") + 1).trim();
        const status = Number((headers.Status ?? "200").split(" ")[0]);
        delete headers.Status;
        res.writeHead(status, headers);
        [chunk, sent] = [head.subarray(end + 4), 0];
      }
      if (stall && sent + chunk.length >= STALL_AFTER) {
        res.write(chunk.subarray(0, STALL_AFTER - sent));
        if (sent < STALL_AFTER) stalls++;
        sent = STALL_AFTER;
        return; // the rest never comes, and the answer never ends
      }
      sent += chunk.length;
      res.write(chunk);
    });
    cgi.on("close", () => {
      if (!stall || sent < STALL_AFTER) res.end(); // a short answer (the ref listing) is not stalled
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${basename(bare)}`, stalls: () => stalls };
}

test("issue 31 item 5: a fetch killed by --git-timeout mid-download leaves no lock that fails the next round: it loads once the server is back", {
  timeout: 120_000,
}, async () => {
  const repo = testRepo();
  // Incompressible, so the pack is far over 64 KiB.
  const commit = repo.commit({ "cubeform.yaml": plainFleet("web"), "assets/blob.bin": randomBytes(1536 * 1024).toString("base64") });
  let stalled = true;
  const server = await stallingGitServer(repo.bare, repo.env, () => stalled);
  const cwd = tempDir();
  const validate = () => startBin(["validate", "--repo", server.url, "--git-timeout", "3s"], { cwd, env: repo.env }).exited;

  const killed = await validate();
  expect(killed.code, describeRun(killed)).toBe(1);
  expect(killed.stderr).toContain("timed out after 3 s (--git-timeout)");
  expect(server.stalls()).toBeGreaterThan(0);
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  const clone = join(clones, readdirSync(clones).find((name) => !name.endsWith(".lock")) as string);
  // What the killed git left behind.
  expect(readdirSync(join(clone, ".git")).filter((name) => name.endsWith(".lock"))).toContain("shallow.lock");

  stalled = false;
  // A process still running in the clone (as a git left behind by a killed cubeform would be): its lock is not taken away,
  // and git's lines are told in their order, what failed first.
  const holder = spawn("sleep", ["60"], { cwd: clone, stdio: "ignore" });
  onTestFinished(() => void holder.kill("SIGKILL"));
  const held = await validate();
  expect(held.code, describeRun(held)).toBe(1);
  expect(held.stderr).toMatch(
    /failed: fatal: Unable to create '[^']*shallow\.lock': File exists\.; .*remove the file manually to continue\./,
  );
  holder.kill("SIGKILL");
  await new Promise((resolve) => holder.once("exit", resolve));

  const next = await validate();
  expect(next.code, describeRun(next)).toBe(0);
  expect(next.stdout).toContain(`at commit ${commit}`);
  expect(readdirSync(join(clone, ".git")).filter((name) => name.endsWith(".lock"))).toEqual([]);
});
