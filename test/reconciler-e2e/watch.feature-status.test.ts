/**
 * /status shows what watch sent besides its rounds: notifications (--notify: channel = the receiver's origin, never its path, which may be a
 * key) and commit statuses (--status-provider). The real CLI, the emulator, a notify receiver and a fake GitHub on 127.0.0.1.
 */
import { expect, test } from "vitest";
import type { FeatureLists } from "../../reconciler/metrics/feature-status.js";
import { startFakeForge } from "../support/fake-forge.js";
import { startReceiver } from "../support/notify-receiver.js";
import { plainFleet, project, projectWithRepo, waitFor, type Child } from "./support.js";
import { metricsBase, stopWatch as stop, watchArgs } from "./support/watch.js";

const WATCH = watchArgs("300ms");
const TOKEN = "ghp_featureStatusToken0123456789";
const PATH_KEY = "T00000000-B00000000-pathKeyThatIsASecret";

async function statusOf(child: Child): Promise<{ text: string; json: FeatureLists }> {
  const text = await (await fetch(`${await metricsBase(child)}/status`)).text();
  return { text, json: JSON.parse(text) as FeatureLists };
}

test("watch --notify: /status lists each notification sent or given up, by event type and the receiver's origin (never the url's path)", {
  timeout: 180_000,
}, async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web") });
  const good = await startReceiver();
  const refusing = await startReceiver();
  refusing.answer = () => ({ status: 400 });
  const watch = p.start([...WATCH, "--notify", `${good.url}/${PATH_KEY}`, "--notify", refusing.url]);
  const before = await statusOf(watch);
  expect(before.json.commitStatuses, "commit statuses are not enabled").toBeNull();
  const sent = await waitFor(
    async () => {
      const { json } = await statusOf(watch);
      return (json.notifications ?? []).length >= 2 ? json.notifications : undefined;
    },
    { timeoutMs: 60_000, message: "two notifications on /status" },
  );
  const origin = (url: string): string => new URL(url).origin;
  expect(sent).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ channel: origin(good.url), event: "drift.detected", ok: true, error: null }),
      expect.objectContaining({
        channel: origin(refusing.url),
        event: "drift.detected",
        ok: false,
        error: expect.stringContaining("HTTP 400"),
      }),
    ]),
  );
  const { text } = await statusOf(watch);
  expect(text).not.toContain(PATH_KEY);
  expect(text).not.toContain("/hooks/cubeform");
  await stop(watch);
});

test("watch --notify before anything is sent: notifications are enabled and empty", { timeout: 120_000 }, async () => {
  const p = await project({ "cubeform.yaml": "apiVersion: cubeform/v1\ncubes: []\n" });
  const receiver = await startReceiver();
  const watch = p.start([...WATCH, "--notify", receiver.url]);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 60_000, message: "a round in sync" });
  const { json } = await statusOf(watch);
  expect(json.notifications).toEqual([]);
  await stop(watch);
});

test("watch --repo --status-provider github: /status lists the commit statuses posted, with their state and forge; the token never shows", {
  timeout: 180_000,
}, async () => {
  const { p, repo, first: commit } = await projectWithRepo({ "cubeform.yaml": plainFleet("web") });
  const forge = await startFakeForge("github", TOKEN);
  const status = ["--status-provider", "github", "--status-url", forge.url, "--status-repo", "acme/fleet"];
  const watch = p.start([...WATCH, "--apply", "--repo", repo.url, ...status], { ...repo.env, CUBEFORM_STATUS_TOKEN: TOKEN });
  const statuses = await waitFor(
    async () => {
      const { json } = await statusOf(watch);
      return (json.commitStatuses ?? []).some((s) => s.state === "success") ? json.commitStatuses : undefined;
    },
    { timeoutMs: 90_000, message: "a success status on /status" },
  );
  expect(statuses!.map((s) => `${s.revision} ${s.state} ${s.target} ${s.error}`)).toEqual([
    `${commit} success github null`,
    `${commit} pending github null`,
  ]);
  expect(statuses![0]!.description).toContain("the space matches this commit");
  const { text, json } = await statusOf(watch);
  expect(json.notifications, "notifications are not enabled").toBeNull();
  expect(text).not.toContain(TOKEN);
  await stop(watch);
});
