/**
 * What tests of `watch` (the built bin) share: its command line, the metrics server it announces on stderr,
 * push events signed as GitHub signs them, and a stop by SIGTERM that must exit 0.
 */
import { createHmac, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { freePort } from "../../support/ports.js";
import { describeRun, RATE, tempDir, waitFor, type Child, type Finished, type Project } from "../support.js";

/** `watch` every `interval` with its metrics server on a free port and the test pacing, then `more`. */
export function watchArgs(interval: string, ...more: string[]): string[] {
  return ["watch", "--interval", interval, "--metrics-port", "0", ...RATE, "--poll-interval", "20", ...more];
}

/** The base URL (http://127.0.0.1:PORT) of the metrics server `child` announced on stderr. */
export async function metricsBase(child: Child, timeoutMs = 30_000): Promise<string> {
  const match = await waitFor(() => /metrics: (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(child.stderr()), {
    timeoutMs,
    message: "the metrics address on stderr",
  });
  return match[1] as string;
}

/** GET `url`: its status and body. */
export async function fetchText(url: string): Promise<[number, string]> {
  const response = await fetch(url);
  return [response.status, await response.text()];
}

/** A Prometheus text page as name → value (comment lines skipped). */
export function metricValues(page: string): Record<string, number> {
  const values: Record<string, number> = {};
  for (const line of page.split("\n")) {
    const [name, value] = line.split(" ");
    if (name && value && !line.startsWith("#")) values[name] = Number(value);
  }
  return values;
}

/** cubeform_rounds_total from the metrics server at `base` (0 before it is first set). */
export async function roundsTotal(base: string): Promise<number> {
  return Number(/^cubeform_rounds_total (\d+)$/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0);
}

/** SIGTERM: watch finishes the step under way and exits 0. */
export async function stopWatch(child: Child): Promise<Finished> {
  child.process.kill("SIGTERM");
  const run = await child.exited;
  expect(run.code, describeRun(run)).toBe(0);
  return run;
}

export const PUSH_SECRET = "push-secret-for-tests";

/** The body of a push to `ref`; each call's is its own (a new `after`), so none is taken for a replay of another. */
function pushBody(ref = "refs/heads/main"): string {
  return JSON.stringify({ ref, after: randomUUID(), repository: { default_branch: "main" } });
}

/**
 * POSTs a push event to watch's listener as GitHub delivers one: `body` (by default a new push to `ref`), signed with
 * `secret`, under `deliveryId` if given.
 */
export function githubPush(
  port: number,
  options: { ref?: string; body?: string; secret?: string; deliveryId?: string } = {},
): Promise<Response> {
  const body = options.body ?? pushBody(options.ref);
  const signature = `sha256=${createHmac("sha256", options.secret ?? PUSH_SECRET)
    .update(body)
    .digest("hex")}`;
  return fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "push",
      ...(options.deliveryId === undefined ? {} : { "x-github-delivery": options.deliveryId }),
      "x-hub-signature-256": signature,
    },
    body,
  });
}

export interface RepoWatch {
  child: Child;
  /** The metrics server's base URL. */
  base: string;
  /** The port watch listens on for pushes (signed with PUSH_SECRET). */
  port: number;
}

/**
 * `watch --apply --repo repoUrl` every `interval`, listening for pushes signed with PUSH_SECRET on a free port;
 * `args` add flags, `env` is the child's (the repository's git settings, tokens). Resolves once the metrics server is up.
 */
export async function startRepoWatch(
  p: Project,
  repoUrl: string,
  options: { interval: string; env: Record<string, string>; args?: string[] },
): Promise<RepoWatch> {
  const port = await freePort();
  const secretFile = join(tempDir(), "push.secret");
  writeFileSync(secretFile, `${PUSH_SECRET}\n`);
  const listen = ["--listen", `127.0.0.1:${port}`, "--push-secret-file", secretFile];
  const child = p.start(watchArgs(options.interval, "--apply", "--repo", repoUrl, ...listen, ...(options.args ?? [])), options.env);
  return { child, base: await metricsBase(child), port };
}
