/**
 * Issue 35 item 3 and "Done when": `--notify` against a webhook receiver on 127.0.0.1 (test/support/notify-receiver.ts), with the real CLI
 * and the emulator. Out-of-band changes are made through the API, as another person or tool would.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { startReceiver, type Received, type Receiver } from "../support/notify-receiver.js";
import { APPLY, RATE, describeRun, plainFleet, project, waitFor, type Child } from "./support.js";
import { metricValues, metricsBase, stopWatch, watchArgs } from "./support/watch.js";

const SECRET = "whsec-notify-e2e-0123456789abcdef";
const WATCH = watchArgs("200ms");
const NAMES = Array.from({ length: 20 }, (_, i) => `n${String(i + 1).padStart(2, "0")}`);

const ofType = (receiver: Receiver, type: string): Received[] => unique(receiver.accepted()).filter((r) => r.body.type === type);
/** Retries resend an event under its id: a receiver keeps the first. */
const unique = (received: Received[]): Received[] => [...new Map(received.map((r) => [r.body.id, r])).values()];
const addresses = (events: Received[]): string[] =>
  events.flatMap((e) => ((e.body.details as { resources: { address: string }[] }).resources ?? []).map((r) => r.address));

async function metrics(child: Child): Promise<Record<string, number>> {
  return metricValues(await (await fetch(`${await metricsBase(child)}/metrics`)).text());
}

test("20 cubes stopped out of band during watch --apply --notify: one drift.detected and one drift.repaired per drift, not one per round; signed; a receiver answering 500 delays neither the repair nor the rounds, and gets them on retry", {
  timeout: 240_000,
}, async () => {
  const fleet = `${plainFleet(...NAMES).replace(/^( {2}- name: n\d+)$/gm, "$1\n    power: running")}warnings: { ignore: [vcpu-cap, disk-cap] }\n`;
  const p = await project({ "cubeform.yaml": fleet, "notify.secret": `${SECRET}\n` });
  expect((await p.run(APPLY)).code).toBe(0);
  const receiver = await startReceiver();
  // Down (500) until every cube is repaired: the repair cannot have waited for a delivery.
  let down = true;
  receiver.answer = () => (down ? { status: 500 } : { status: 200 });
  const watch = p.start([...WATCH, "--apply", "--notify", receiver.url, "--notify-secret-file", "notify.secret"]);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 60_000, message: "watch in sync" });

  const cubes = (await p.api.listCubes()).filter((c) => NAMES.includes(c.name));
  for (const cube of cubes) await p.api.powerOff(cube.id);
  await waitFor(
    async () =>
      (await p.api.listCubes()).filter((c) => NAMES.includes(c.name) && c.state === "running").length === 20 &&
      watch.stdout().trimEnd().endsWith(": in sync"),
    {
      timeoutMs: 120_000,
      message: "watch to start the 20 cubes again",
    },
  );
  expect(receiver.accepted(), "the repair finished while the receiver answered only 500").toEqual([]);
  // The round's events are queued as it ends: the first tries may come just after its "in sync" line.
  await waitFor(() => receiver.all.length > 0, { timeoutMs: 30_000, message: "deliveries tried while the receiver is down" });
  await waitFor(async () => ((await metrics(watch)).cubeform_notification_failures_total ?? 0) > 0, {
    timeoutMs: 30_000,
    message: "failed tries counted",
  });
  down = false;

  const expected = NAMES.map((name) => `cube/${name}`).sort();
  await waitFor(() => addresses(ofType(receiver, "drift.repaired")).length >= 20, {
    timeoutMs: 60_000,
    message: "the repaired events delivered on retry",
  });
  // Many more rounds, in sync: nothing more is sent.
  const rounds = (await metrics(watch)).cubeform_rounds_total ?? 0;
  await waitFor(async () => ((await metrics(watch)).cubeform_rounds_total ?? 0) >= rounds + 10, {
    timeoutMs: 60_000,
    message: "10 more rounds",
  });
  await waitFor(async () => ((await metrics(watch)).cubeform_notifications_queued ?? 1) === 0, {
    timeoutMs: 60_000,
    message: "the queue empty",
  });

  const detected = ofType(receiver, "drift.detected");
  const repaired = ofType(receiver, "drift.repaired");
  expect(addresses(detected).sort(), "each drift detected once").toEqual(expected);
  expect(addresses(repaired).sort(), "each drift repaired once").toEqual(expected);
  expect(
    unique(receiver.accepted())
      .map((r) => r.body.type)
      .filter((t) => !String(t).startsWith("drift.")),
  ).toEqual([]);
  for (const event of [...detected, ...repaired]) {
    expect(event.body).toMatchObject({
      version: 1,
      space: p.emu.spaceId,
      revision: null,
      command: "watch",
      source: { kind: "files", files: ["cubeform.yaml"] },
    });
    const resources = (
      event.body.details as { resources: { action: string; fields: { path: string; live: unknown; desired: unknown }[] }[] }
    ).resources;
    for (const resource of resources) expect(resource.fields.find((f) => f.path === "power")).toMatchObject({ desired: "running" });
  }
  for (const received of receiver.accepted()) expect(receiver.verifies(received, SECRET), "signature verifies with the secret").toBe(true);
  const after = await metrics(watch);
  expect(after.cubeform_notifications_sent_total).toBe(detected.length + repaired.length);
  expect(after.cubeform_notifications_dropped_total).toBe(0);
  const everything = watch.stdout() + watch.stderr() + receiver.all.map((r) => r.raw.toString() + JSON.stringify(r.headers)).join("\n");
  for (const secret of [SECRET, p.emu.apiKey, receiver.url]) expect(everything).not.toContain(secret);

  await stopWatch(watch);
});

test("watch --repo --notify --notify-format slack: source.broken once per broken commit, in Slack's shape, while the last good commit stays enforced", {
  timeout: 180_000,
}, async () => {
  const p = await project();
  const repo = testRepo();
  repo.commit({ "cubeform.yaml": plainFleet("web") });
  const receiver = await startReceiver();
  const watch = p.start([...WATCH, "--apply", "--repo", repo.url, "--notify", receiver.url, "--notify-format", "slack"], repo.env);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 60_000, message: "watch in sync" });
  const roundsAt = async () => (await metrics(watch)).cubeform_rounds_total ?? 0;

  const broken = repo.commit({ "cubeform.yaml": "apiVersion: cubeform/v1\ncubes: [\n" });
  const told = (): number => receiver.accepted().filter((r) => String(r.body.text).includes("*source.broken*")).length;
  await waitFor(() => told() >= 1, { timeoutMs: 60_000, message: "source.broken" });
  const start = await roundsAt();
  await waitFor(async () => (await roundsAt()) >= start + 8, { timeoutMs: 60_000, message: "8 more rounds on the broken commit" });
  const brokenAgain = repo.commit({ "cubeform.yaml": "apiVersion: cubeform/v1\ncubes: {\n" });
  await waitFor(() => told() >= 2, { timeoutMs: 60_000, message: "a second source.broken" });
  const second = await roundsAt();
  await waitFor(async () => (await roundsAt()) >= second + 8, { timeoutMs: 60_000, message: "8 more rounds" });

  // The first round's create of web is drift too (drift.detected, drift.repaired): only the source events count here.
  const bodies = receiver
    .accepted()
    .map((r) => r.body as { text: string; blocks: { type: string }[] })
    .filter((b) => b.text.includes("*source.broken*"));
  expect(bodies, "one per broken commit").toHaveLength(2);
  for (const body of bodies) {
    expect(Object.keys(body).sort()).toEqual(["blocks", "text"]);
    expect(body.blocks.map((b) => b.type)).toEqual(["section", "context"]);
    expect(body.text).toContain("*source.broken*");
    expect(body.text).toContain("stays enforced");
  }
  expect(bodies[0]?.text).toContain(`commit ${broken.slice(0, 12)} does not load`);
  expect(bodies[1]?.text).toContain(`commit ${brokenAgain.slice(0, 12)} does not load`);
  await stopWatch(watch);
});

test("apply --notify (CI): apply.failed names the failed step; a change over the budget sends budget.blocked; both signed", {
  timeout: 120_000,
}, async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web", "db"), "notify.secret": SECRET });
  const receiver = await startReceiver();
  const notify = ["--notify", receiver.url, "--notify-secret-file", "notify.secret"];
  p.emu.admin.injectFault({ kind: "status", status: 422, method: "POST", path: "/cubes$", times: 1 });
  const failed = await p.run([...APPLY, ...notify]);
  expect(failed.code, describeRun(failed)).toBe(1);
  expect(receiver.accepted().map((r) => r.body.type)).toEqual(["apply.failed"]);
  const event = receiver.accepted()[0]!.body as {
    space: string;
    command: string;
    details: { failedSteps: { op: string; address: string }[] };
  };
  expect(event).toMatchObject({ space: p.emu.spaceId, command: "apply" });
  expect(event.details.failedSteps).toEqual([expect.objectContaining({ op: "create-cube" })]);

  writeFileSync(join(p.cwd, "cubeform.yaml"), `${plainFleet("web", "db", "cache", "queue")}budget: { monthly: 1 }\n`);
  const held = await p.run([...APPLY, ...notify]);
  expect(held.code, describeRun(held)).toBe(1);
  expect(held.stderr + held.stdout).toContain("over the budget");
  const blocked = receiver.accepted()[1]!.body as { type: string; details: { budget: number; after: number } };
  expect(blocked.type).toBe("budget.blocked");
  expect(blocked.details.budget).toBe(1);
  expect(blocked.details.after).toBeGreaterThan(1);
  for (const received of receiver.accepted()) expect(receiver.verifies(received, SECRET)).toBe(true);
  for (const text of [failed.stdout, failed.stderr, held.stdout, held.stderr, ...receiver.all.map((r) => r.raw.toString())])
    expect(text).not.toContain(SECRET);
});

test("drift --notify: one drift.detected for a space that differs; none when it is in sync", { timeout: 120_000 }, async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web") });
  const receiver = await startReceiver();
  const drifted = await p.run(["drift", ...RATE, "--notify", receiver.url]);
  expect(drifted.code, describeRun(drifted)).toBe(2);
  expect(receiver.accepted().map((r) => [r.body.type, r.body.command])).toEqual([["drift.detected", "drift"]]);
  expect(addresses(receiver.accepted())).toEqual(["cube/web"]);
  expect((await p.run(APPLY)).code).toBe(0);
  const inSync = await p.run(["drift", ...RATE, "--notify", receiver.url]);
  expect(inSync.code, describeRun(inSync)).toBe(0);
  expect(receiver.accepted()).toHaveLength(1);
});

test("apply --notify: a mandatory policy violation sends policy.blocked; the same apply with --override-policy sends policy.overridden with the reason (issue 36 item 4)", {
  timeout: 120_000,
}, async () => {
  const p = await project({
    "cubeform.yaml": plainFleet("web").replace("  - name: web\n", "  - name: web\n    resources: { vcpu: 2, ramGb: 1, diskGb: 10 }\n"),
    "policy.yaml":
      "apiVersion: cubeform/v1\nkind: Policy\nrules:\n  - name: small-cubes\n    enforcement: mandatory\n    max: { vcpu: 1 }\n",
  });
  const receiver = await startReceiver();
  const notify = ["--policy", "policy.yaml", "--notify", receiver.url];
  const refused = await p.run([...APPLY, ...notify]);
  expect(refused.code, describeRun(refused)).toBe(1);
  expect(p.mutations()).toBe(0);
  const overridden = await p.run([...APPLY, ...notify, "--override-policy", "small-cubes", "--reason", "load test until Friday (OPS-42)"]);
  expect(overridden.code, describeRun(overridden)).toBe(0);
  const [blocked, override] = receiver.accepted().map((r) => r.body as { type: string; details: Record<string, unknown> });
  expect(receiver.accepted()).toHaveLength(2);
  expect(blocked).toMatchObject({
    type: "policy.blocked",
    details: { violations: [expect.objectContaining({ rule: "small-cubes", address: "cube/web" })] },
  });
  expect(override).toMatchObject({
    type: "policy.overridden",
    details: { overrides: [{ rule: "small-cubes", reason: "load test until Friday (OPS-42)" }], outcome: "applied" },
  });
});
