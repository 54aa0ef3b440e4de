/**
 * `watch --apply --listen`: the service's own webhook delivery (signed with the secret the file's
 * webhook endpoint wrote to its secretFile) starts a round at once, so an out-of-band delete is
 * repaired far sooner than the polling interval (60 s here). The measured latency is printed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { freePort } from "../support/ports.js";
import { APPLY, FLEET, RATE, describeRun, project, waitFor } from "./support.js";

test("a cube event starts a round at once: an out-of-band delete is repaired well under the interval", { timeout: 90_000 }, async () => {
  const port = await freePort();
  const fleet = `${FLEET}webhooks:
  - url: http://127.0.0.1:${port}/
    events: [cube.deleted, domain.removed, tcp_mapping.removed]
    secretFile: .secrets/watch.secret
`;
  const p = await project({ "cubeform.yaml": fleet });
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);

  const watch = p.start(["watch", "--apply", "--interval", "60s", "--listen", `127.0.0.1:${port}`, ...RATE, "--poll-interval", "20"]);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 30_000, message: "the first round" });
  expect(watch.stderr()).toContain(`listening for webhook deliveries on http://127.0.0.1:${port}/`);

  // A forged delivery is refused and starts nothing.
  const forged = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: { "x-krova-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`, "x-krova-event": "cube.deleted" },
    body: "{}",
  });
  expect(forged.status).toBe(401);

  const web = (await p.api.listCubes()).find((c) => c.name === "web")!;
  const postgres = (await p.api.listTcpMappings(web.id)).find((m) => m.cubePort === 5432)!;
  const started = performance.now();
  await p.api.deleteTcpMapping(web.id, postgres.id);
  await waitFor(async () => (await p.api.listTcpMappings(web.id)).some((m) => m.cubePort === 5432 && m.label === "postgres"), {
    timeoutMs: 30_000,
    intervalMs: 20,
    message: "the deleted port to be re-created",
  });
  const repairMs = performance.now() - started;
  console.log(`watch --listen repair latency: ${Math.round(repairMs)} ms (polling interval 60000 ms)`);
  expect(repairMs).toBeLessThan(20_000);
  expect(watch.stderr()).toMatch(/event tcp_mapping\.removed \(dlv_\w+\): starting a round/);
  expect(watch.stderr()).toContain("refused a delivery: invalid_signature");
  watch.process.kill("SIGTERM");
  expect((await watch.exited).code).toBe(0);

  // The delivery log of the endpoint, by url: the event that started the round was delivered.
  const secret = readFileSync(join(p.cwd, ".secrets", "watch.secret"), "utf8").trim();
  const json = await p.run(["webhook", "deliveries", `http://127.0.0.1:${port}/`, "--format", "json", ...RATE]);
  expect(json.code, describeRun(json)).toBe(0);
  const log = JSON.parse(json.stdout) as { deliveries: { event: string; status: string; attempts: number; lastError: string | null }[] };
  expect(log.deliveries).toContainEqual(
    expect.objectContaining({ event: "tcp_mapping.removed", status: "delivered", attempts: 1, lastError: null }),
  );
  const text = await p.run(["webhook", "deliveries", `http://127.0.0.1:${port}/`, ...RATE]);
  expect(text.code, describeRun(text)).toBe(0);
  expect(text.stdout).toMatch(/tcp_mapping\.removed\s+delivered\s+1/);
  const missing = await p.run(["webhook", "deliveries", "https://nowhere.example.com/", ...RATE]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('no webhook endpoint has the url (or id) "https://nowhere.example.com/"');
  for (const run of [applied, json, text, await watch.exited]) expect(`${run.stdout}${run.stderr}`.includes(secret)).toBe(false);
});
