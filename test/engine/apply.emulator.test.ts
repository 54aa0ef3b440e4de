import { describe, expect } from "vitest";
import { apply, diff, executeStep, memoryJournal, observe, runSteps, type DesiredState } from "../../engine/index.js";
import { desired, spec } from "./fixtures.js";
import { applyOptions, clientFor, test } from "./emulator-fixture.js";

function fleet(overrides: { image?: string; allowReplace?: boolean; protect?: boolean } = {}): DesiredState {
  return desired([
    spec("web", {
      image: overrides.image ?? "ubuntu-24.04",
      sshPort: 2222,
      ...(overrides.protect !== undefined ? { terminationProtection: overrides.protect } : {}),
      lifecycle: { allowReplace: overrides.allowReplace ?? false, ignoreChanges: [] },
      domains: [
        {
          hostname: "app.example.com",
          port: 8080,
          settings: { basicAuthUser: "admin", originScheme: "https" },
          basicAuthPassword: { env: "WEB_PASS" },
        },
      ],
      ports: [{ cubePort: 5432, udp: false, allow: ["10.0.0.0/8"], label: "pg" }],
    }),
    spec("worker", { power: "stopped" }),
  ]);
}

describe("apply against the emulator", () => {
  test("creates a fleet that a second diff finds converged", async ({ emulator, client }) => {
    const file = fleet();
    const plan = diff(file, await observe(client));
    const result = await apply(plan, applyOptions(emulator, client, file));
    expect(result.outcomes.filter((o) => o.status !== "done")).toEqual([]);
    expect(result.converged).toBe(true);
    expect(result.mutationsSent).toBe(plan.summary.mutations);
    const attach = result.outcomes.find((o) => o.step.op === "attach-domain");
    expect(attach?.records?.[0]).toMatchObject({ type: "CNAME", host: "app.example.com" });

    const again = await observe(client);
    expect(again.reads).toBeGreaterThanOrEqual(1 + 2 * 2);
    const second = diff(file, again);
    expect(second.steps).toEqual([]);
    expect(second.changes.every((c) => c.action === "noop")).toBe(true);
    expect(JSON.stringify(plan)).not.toContain("s3cret-pass");
  });

  test("powering a cube off waits until it is stopped: 'converged' never leaves it stopping", async ({ emulator, client }) => {
    const running = desired([spec("worker")]);
    await apply(diff(running, await observe(client)), applyOptions(emulator, client, running));
    emulator.admin.setClockSpeed(4); // stopping now lasts 500 ms
    const stopped = desired([spec("worker", { power: "stopped" })]);
    const result = await apply(diff(stopped, await observe(client)), applyOptions(emulator, client, stopped));
    expect(result.converged).toBe(true);
    expect((await client.listCubes()).find((c) => c.name === "worker")?.state).toBe("stopped");
  });

  test("replaces a cube when allowed, and the replacement converges", async ({ emulator, client }) => {
    await apply(diff(fleet(), await observe(client)), applyOptions(emulator, client, fleet()));
    const before = (await observe(client)).cubes.find((c) => c.cube.name === "web")?.cube.id;
    const blocked = diff(fleet({ image: "debian-13" }), await observe(client));
    expect(blocked.changes[0]?.blocked?.code).toBe("replace_not_allowed");

    const file = fleet({ image: "debian-13", allowReplace: true });
    const result = await apply(diff(file, await observe(client)), applyOptions(emulator, client, file));
    expect(result.outcomes.filter((o) => o.status !== "done")).toEqual([]);
    expect(result.converged).toBe(true);
    const web = (await observe(client)).cubes.filter((c) => c.cube.name === "web");
    expect(web).toHaveLength(1);
    expect(web[0]?.cube.id).not.toBe(before);
    expect(web[0]?.cube.image).toBe("debian-13");
    expect(web[0]?.domains.map((d) => d.hostname)).toEqual(["app.example.com"]);
  });

  test("protection blocks the replacement; the API's refusal surfaces as termination_protected", async ({ emulator, client }) => {
    await apply(diff(fleet({ protect: true }), await observe(client)), applyOptions(emulator, client, fleet({ protect: true })));
    const file = fleet({ image: "debian-13", allowReplace: true, protect: true });
    const plan = diff(file, await observe(client));
    expect(plan.changes[0]?.blocked?.code).toBe("termination_protected");
    const result = await apply(plan, applyOptions(emulator, client, file));
    expect(result.outcomes).toEqual([]);
    expect(result.blocked.map((c) => c.address)).toEqual(["cube/web"]);
    expect(result.converged).toBe(true);

    const id = (await observe(client)).cubes.find((c) => c.cube.name === "web")?.cube.id ?? "";
    const outcome = await executeStep(
      { op: "delete-cube", address: "cube/web", cube: { cubeName: "web", cubeId: id } },
      applyOptions(emulator, client, file),
    );
    expect(outcome).toMatchObject({ status: "failed", error: { code: "termination_protected" } });
  });

  test("a cube that does not come up in time fails its wait with the state and deadline", async ({ emulator, client }) => {
    emulator.admin.setClockSpeed(0.001);
    const file = desired([spec("slow")]);
    const options = { ...applyOptions(emulator, client, file), waitTimeoutMs: 200, pollIntervalMs: 20 };
    const result = await apply(diff(file, await observe(client)), options);
    const wait = result.outcomes.find((o) => o.step.op === "wait-running");
    expect(wait?.status).toBe("failed");
    expect(wait?.error?.code).toBe("wait_timeout");
    expect(wait?.error?.message).toMatch(
      /cube "slow" \(.+\) is still pending after 200ms of waiting for it to be running \(deadline \d{4}-/,
    );
    expect(result.converged).toBe(true);
  });

  test("a create whose response is lost is not duplicated when the step runs again (journal key)", async ({ emulator }) => {
    const client = clientFor(emulator, { maxRetries: 0 });
    try {
      emulator.admin.injectFault({ kind: "drop-after-commit", method: "POST", path: "/cubes$" });
      const file = desired([spec("web")]);
      const plan = diff(file, await observe(client));
      const journal = memoryJournal();
      const options = { ...applyOptions(emulator, client, file), journal };
      const first = await runSteps(plan.steps, options);
      expect(first.outcomes[0]).toMatchObject({ status: "failed" });
      expect(journal.size()).toBe(1);
      const second = await runSteps(plan.steps, options);
      expect(second.outcomes.map((o) => o.status)).toEqual(["done", "done"]);
      expect(journal.size()).toBe(0);
      const cubes = (await observe(client)).cubes.filter((c) => c.cube.name === "web");
      expect(cubes).toHaveLength(1);
      const posts = emulator.admin.requests().filter((r) => r.method === "POST" && /\/cubes$/.test(r.path));
      expect(posts).toHaveLength(2);
      expect(posts[0]?.idempotencyKey).toBe(posts[1]?.idempotencyKey);
      expect(posts[1]?.replayed).toBe(true);
    } finally {
      await client.close();
    }
  });

  test("a missing secret fails the step and names the environment variable", async ({ emulator, client }) => {
    const file = fleet();
    const options = { ...applyOptions(emulator, client, file), secrets: () => undefined };
    const result = await apply(diff(file, await observe(client)), options);
    const attach = result.outcomes.find((o) => o.step.op === "attach-domain");
    expect(attach).toMatchObject({ status: "failed", error: { code: "missing_secret" } });
    expect(attach?.error?.message).toContain("WEB_PASS");
    expect(result.outcomes.filter((o) => o.status === "skipped").length).toBeGreaterThan(0);
    expect(result.converged).toBe(false);
  });
});
