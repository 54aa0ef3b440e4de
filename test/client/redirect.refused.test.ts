import { afterEach, describe, expect, test } from "vitest";
import { createClient, RedirectRefusedError } from "../../client/index.js";
import { startTestServer, type TestServer } from "./support/server.js";

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe("redirects are never followed", () => {
  test.each([301, 302, 307, 308])("a %i to another origin is refused and the key never reaches it", async (status) => {
    const other = await startTestServer(() => ({ body: { id: "s-evil", name: "x", tier: "free", createdAt: "2026-01-01" } }));
    const api = await startTestServer((r) => ({ status, headers: { location: `${other.origin}/api/v1${r.path}?next=1` } }));
    servers.push(other, api);
    const client = createClient({ baseUrl: api.url, apiKey: "kro_redirect_canary", spaceId: "s1" });
    try {
      const read = await client.getSpace().catch((e: unknown) => e);
      const write = await client
        .createCube(
          { name: "a", image: "i", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: "ssh-ed25519 AAAA" },
          { idempotencyKey: "k1" },
        )
        .catch((e: unknown) => e);
      for (const err of [read, write]) {
        expect(err).toBeInstanceOf(RedirectRefusedError);
        expect(err).toMatchObject({ code: "redirect_refused", status, locationOrigin: other.origin, retries: 0 });
      }
    } finally {
      await client.close();
    }
    expect(api.received).toHaveLength(2);
    expect(other.received).toHaveLength(0);
  });
});
