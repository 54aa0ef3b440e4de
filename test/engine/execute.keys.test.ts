import { describe, expect, test } from "vitest";
import { executeStep, memoryJournal, runSteps, type ExecContext, type IdempotencyJournal, type Step } from "../../engine/index.js";
import { ApiFailure, fakeClient, type FakeClient } from "./fake-client.js";
import { KEY } from "./fixtures.js";

const create: Step = {
  op: "create-cube",
  address: "cube/web",
  cube: { cubeName: "web", cubeId: null },
  body: { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 2, diskGb: 20 }, sshPublicKey: KEY },
};

function context(client: FakeClient, journal?: IdempotencyJournal): ExecContext {
  return { client, spaceId: "space-1", secrets: () => undefined, cubeIds: new Map(), ...(journal ? { journal } : {}) };
}

describe("executors: idempotency keys", () => {
  test("the journal's key is taken before the request and settled after the response", async () => {
    const events: string[] = [];
    const inner = memoryJournal();
    const journal: IdempotencyJournal = {
      keyFor: async (entry) => {
        events.push(`keyFor ${entry.address}`);
        return inner.keyFor(entry);
      },
      settle: async (entry) => {
        events.push(`settle ${entry.address}`);
        return inner.settle(entry);
      },
    };
    const client = fakeClient();
    const ctx = context(client, journal);
    const outcome = await executeStep(create, ctx);
    expect(outcome).toMatchObject({ status: "done", createdId: "new-web" });
    expect(events).toEqual(["keyFor cube/web", "settle cube/web"]);
    expect(ctx.cubeIds.get("web")).toBe("new-web");
  });

  test("an ambiguous failure keeps the key for the next run; a refusal forgets it", async () => {
    const journal = memoryJournal();
    const client = fakeClient();
    client.failures.set("createCube web", new ApiFailure("network_error"));
    await executeStep(create, context(client, journal));
    expect(journal.size()).toBe(1);
    await executeStep(create, context(client, journal));
    expect(client.keys[0]).toBe(client.keys[1]);
    client.failures.set("createCube web", new ApiFailure("bad_request"));
    await executeStep(create, context(client, journal));
    expect(journal.size()).toBe(0);
  });

  test("without a journal a step keeps one key across runs", async () => {
    const client = fakeClient();
    client.failures.set("createCube web", new ApiFailure("timeout"));
    await executeStep(create, context(client));
    client.failures.clear();
    await executeStep(create, context(client));
    expect(client.keys).toHaveLength(2);
    expect(client.keys[0]).toBe(client.keys[1]);
    // Issue 31 item 4: the key is derived from the create (space, address, body), so the same create decided anew (another run, another
    // machine) sends the same key; another body or another space, another key.
    await executeStep({ ...create }, context(client));
    expect(client.keys[2]).toBe(client.keys[0]);
    await executeStep({ ...create, body: { ...create.body, image: "debian-12" } }, context(client));
    expect(client.keys[3]).not.toBe(client.keys[0]);
    await executeStep({ ...create }, { ...context(client), spaceId: "space-2" });
    expect(client.keys[4]).not.toBe(client.keys[0]);
  });
});

describe("runSteps", () => {
  const steps: Step[] = [
    { op: "set-protection", address: "cube/a", cube: { cubeName: "a", cubeId: "a" }, value: true },
    { op: "set-protection", address: "cube/b", cube: { cubeName: "b", cubeId: "b" }, value: true },
    { op: "set-protection", address: "cube/c", cube: { cubeName: "c", cubeId: "c" }, value: true },
  ];

  test("stops at the first failure and reports the rest as skipped, not silently dropped", async () => {
    const client = fakeClient();
    client.failures.set("setTerminationProtection b true", new ApiFailure("conflict"));
    const result = await runSteps(steps, context(client));
    expect(result.outcomes.map((o) => [o.status, o.error?.code])).toEqual([
      ["done", undefined],
      ["failed", "conflict"],
      ["skipped", "not_run"],
    ]);
    expect(result.mutationsSent).toBe(2);
  });

  test("stopOnError: false goes on; shouldStop stops gracefully between steps", async () => {
    const client = fakeClient();
    client.failures.set("setTerminationProtection b true", new ApiFailure("conflict"));
    expect((await runSteps(steps, { ...context(client), stopOnError: false })).outcomes.map((o) => o.status)).toEqual([
      "done",
      "failed",
      "done",
    ]);
    let calls = 0;
    const stopped = await runSteps(steps, { ...context(fakeClient()), shouldStop: () => ++calls > 1 });
    expect(stopped.outcomes.map((o) => o.status)).toEqual(["done", "skipped", "skipped"]);
    expect(stopped.outcomes[1]?.error?.message).toBe("not run: stop requested");
  });
});
