/**
 * Issue 35 item 3: what `watch --notify` sends over many rounds (NotifyObserver fed the loop's round events, delivering to a receiver on
 * 127.0.0.1): a failed apply, held changes and a broken commit are told once, not once per round, and again only after a round got past them.
 */
import { expect, test } from "vitest";
import type { Plan } from "../../engine/index.js";
import { Notifier, NotifyObserver } from "../../reconciler/notify/index.js";
import type { RoundEnd } from "../../reconciler/watch/events.js";
import type { CliIo } from "../../reconciler/io.js";
import { startReceiver } from "../support/notify-receiver.js";

const sink = { write: () => true } as unknown as NodeJS.WritableStream;
const io: CliIo = { stdout: sink, stderr: sink, env: {} };

const plan = (over: Partial<Plan> = {}): Plan =>
  ({ spaceId: "spc_1", steps: [{ op: "power-on" }], changes: [], summary: {}, ...over }) as unknown as Plan;
const overBudget = plan({
  cost: {
    currency: "EUR",
    before: 10,
    after: 60,
    delta: 50,
    budget: { monthly: 50, over: true, top: ["web"] },
    cubes: [{ name: "web", before: null, after: 50, delta: 50 }],
  } as never,
});

function round(n: number, over: Partial<RoundEnd>): RoundEnd {
  return {
    round: n,
    trigger: "interval",
    startedAt: 0,
    finishedAt: 0,
    outcome: "succeeded",
    revision: "a".repeat(40),
    drift: [],
    repaired: [],
    plan: plan(),
    applying: true,
    mutations: 0,
    converged: true,
    ...over,
  };
}

test("watch: apply.failed, budget.blocked and source.broken once each over many rounds; told again after a round got past them", async () => {
  const receiver = await startReceiver();
  const observer = new NotifyObserver(new Notifier({ targets: [{ url: new URL(receiver.url), format: "json" }] }, io), {
    kind: "git",
    repo: "https://git.example/fleet.git",
    ref: "main",
    path: "fleet/",
  });
  const failed = {
    outcome: "failed" as const,
    error: { code: "unprocessable", message: "create-cube cube/web: 422" },
    outcomes: [
      { step: { op: "create-cube", address: "cube/web" }, status: "failed", error: { code: "unprocessable", message: "422 (request 7)" } },
    ] as never,
  };
  let n = 0;
  for (let i = 0; i < 5; i++) observer.roundEnded(round(++n, failed));
  for (let i = 0; i < 5; i++) observer.roundEnded(round(++n, { held: "budget", plan: overBudget, converged: false }));
  for (let i = 0; i < 5; i++)
    observer.revisionLoaded({
      round: ++n,
      revision: "a".repeat(40),
      brokenRevision: "b".repeat(40),
      sourceError: "cubeform.yaml is not valid",
    });
  observer.roundEnded(round(++n, {}));
  observer.roundEnded(round(++n, failed));
  await observer.close();
  const types = receiver.accepted().map((r) => r.body.type);
  expect(types).toEqual(["apply.failed", "budget.blocked", "source.broken", "apply.failed"]);
  const [applyFailed, budget] = receiver.accepted().map((r) => r.body);
  expect(applyFailed).toMatchObject({
    space: "spc_1",
    revision: "a".repeat(40),
    source: { kind: "git", repo: "https://git.example/fleet.git", ref: "main", path: "fleet/" },
    details: { failedSteps: [{ op: "create-cube", address: "cube/web" }] },
  });
  expect(budget).toMatchObject({ details: { budget: 50, after: 60, currency: "EUR", top: ["web"] } });
});

test("watch on local files: a file broken after a good load (no commit) is one source.broken per distinct error, with its location", async () => {
  const receiver = await startReceiver();
  const observer = new NotifyObserver(new Notifier({ targets: [{ url: new URL(receiver.url), format: "json" }] }, io), {
    kind: "files",
    files: ["cubeform.yaml"],
  });
  let n = 0;
  const unclosed = "cubeform.yaml is not valid: cubeform.yaml:3:1: unexpected end of the flow sequence";
  const badVcpu = "cubeform.yaml is not valid: cubeform.yaml:4:11: vcpu must be a number";
  for (let i = 0; i < 5; i++) observer.revisionLoaded({ round: ++n, revision: undefined, sourceError: unclosed });
  for (let i = 0; i < 5; i++) observer.revisionLoaded({ round: ++n, revision: undefined, sourceError: badVcpu });
  observer.revisionLoaded({ round: ++n, revision: undefined });
  await observer.close();
  const bodies = receiver
    .accepted()
    .map((r) => r.body as { type: string; summary: string; details: { brokenRevision: string | null; error: string } });
  expect(bodies.map((b) => [b.type, b.details.brokenRevision, b.details.error])).toEqual([
    ["source.broken", null, unclosed],
    ["source.broken", null, badVcpu],
  ]);
  expect(bodies[0]!.summary).toBe("the source does not load");
});
