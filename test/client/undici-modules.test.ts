// client/dispatcher.ts takes undici's classes from their own files (not its index, which makes
// Node load its own copy of undici): an undici release that moves them fails here, not in a user's plan.
import { describe, expect, it } from "vitest";
import * as undici from "undici";
import EnvHttpProxyAgent from "undici/lib/dispatcher/env-http-proxy-agent.js";
import Pool from "undici/lib/dispatcher/pool.js";
import Agent from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";

describe("undici's files the client imports", () => {
  it("are the classes undici's index exports", () => {
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
    expect(Pool).toBe(undici.Pool);
    expect(Agent).toBe(undici.Agent);
    expect(Dispatcher).toBe(undici.Dispatcher);
  });
});
