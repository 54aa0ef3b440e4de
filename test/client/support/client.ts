/** A test server plus a client pointed at it, both closed after each test. */
import { afterEach } from "vitest";
import { createClient, type ClientLogEvent, type ClientOptions } from "../../../client/index.js";
import { recordingSleep, startTestServer, type Handler, type TestServer } from "./server.js";

export interface Harness {
  server: TestServer;
  client: ReturnType<typeof createClient>;
  /** Waits the client asked for (backoff, Retry-After); none of them really waited. */
  waits: number[];
  events: ClientLogEvent[];
}

export function useHarness(): (handler: Handler, options?: Partial<ClientOptions>) => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const h of open.splice(0)) {
      await h.client.close();
      await h.server.close();
    }
  });
  return async (handler, options = {}) => {
    const server = await startTestServer(handler);
    const { sleep, waits } = recordingSleep();
    const events: ClientLogEvent[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: "kro_test_key",
      spaceId: "s1",
      // Loose pacing: these tests are about other layers.
      rateLimit: { limit: 1000, windowMs: 1000 },
      sleep,
      logger: (e) => events.push(e),
      ...options,
    });
    const harness = { server, client, waits, events };
    open.push(harness);
    return harness;
  };
}
