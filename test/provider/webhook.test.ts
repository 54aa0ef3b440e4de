/**
 * A Webhook through the plugin: created with its signing secret as an output (the class marks it
 * secret), unchanged for the same inputs, replaced (created first) on any change, gone after a
 * dashboard delete (refresh), the secret kept across refreshes and never in __provider or logs.
 */
import { describe, expect, it } from "vitest";
import { DIFF_NONE, DIFF_SOME } from "./harness.js";
import { stackForFile, type Resource, type Stack } from "./support/stack.js";

let stack: Stack;
stackForFile((started) => (stack = started));

const inputs = (extra: Record<string, unknown> = {}) => ({
  url: "http://127.0.0.1:9/cube",
  events: ["cube.deleted", "domain.removed"],
  description: "gitops",
  ...extra,
});

describe("Webhook resource", () => {
  let hook: Resource;
  it("creates the endpoint and outputs its signing secret", async () => {
    hook = await stack.create("Webhook", "hook", inputs());
    expect(hook.id).toMatch(/^wh/);
    expect(hook.outs).toMatchObject({ webhookId: hook.id, url: "http://127.0.0.1:9/cube", enabled: true, description: "gitops" });
    expect(hook.outs.secret).toMatch(/^whsec_/);
    expect(stack.providers.Webhook.includes(hook.outs.secret as string)).toBe(false);
    expect(stack.plugin.stderr().includes(hook.outs.secret as string)).toBe(false);
  });

  it("reports no change for the same events in another order; any change replaces it, creating first", async () => {
    expect((await stack.diff(hook, inputs({ events: ["domain.removed", "cube.deleted"] }))).changes).toBe(DIFF_NONE);
    expect(await stack.diff(hook, inputs({ events: ["cube.deleted"] }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["events"],
      deleteBeforeReplace: false,
    });
    expect((await stack.diff(hook, inputs({ description: "other" }))).replaces).toEqual(["description"]);
  });

  it("rejects event names outside the API's list", async () => {
    const { failures } = await stack.plugin.check(
      stack.urn("Webhook", "bad"),
      undefined,
      stack.withProvider("Webhook", inputs({ events: ["cube.exploded"] })),
    );
    expect(failures.map((f) => f.property)).toEqual(["events[0]"]);
  });

  it("keeps the secret across a refresh; a dashboard delete makes refresh forget it (the next up recreates it)", async () => {
    const refreshed = await stack.refresh(hook);
    expect(refreshed?.outs.secret).toBe(hook.outs.secret);
    const api = await fetch(`${stack.emulator.url}/spaces/${stack.emulator.spaceId}/webhooks/${hook.id}`, {
      method: "DELETE",
      headers: { "X-API-KEY": stack.emulator.apiKey },
    });
    expect(api.status).toBeLessThan(300);
    expect(await stack.refresh(hook)).toBeUndefined();
    await stack.destroy(hook);
  });
});
