/**
 * The client speaks the desired-state file's names (client/vocabulary.ts): a domain's
 * `hostname`, a TCP mapping's `udp` and `allow`; on the wire they are the API's `domain`,
 * `udpEnabled` and `whitelistedIps`, both ways, and whichever check (quick or zod) read the answer.
 */
import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";
import { sampleApiDomain, sampleApiTcpMapping } from "./support/server.js";

const harness = useHarness();

const apiDomain = sampleApiDomain({ port: 8080 });
const whitelistedIps = [
  { id: "w1", cidr: "10.0.0.0/8" },
  { id: "w2", cidr: "1.2.3.4/32" },
];
const apiMapping = sampleApiTcpMapping({ cubePort: 5432, label: "pg", udpEnabled: false, whitelistedIps });
/** The same objects in the file's names: only the renamed fields differ. */
const domain = { id: "d1", cubeId: "c1", hostname: "app.example.com", port: 8080, status: "active", isWildcard: false };
const placed = { id: "m1", cubeId: "c1", cubePort: 5432, hostPort: 30001, host: "h", label: "pg", status: "active", isSsh: false };
const mapping = { ...placed, udp: false, allow: ["10.0.0.0/8", "1.2.3.4/32"] };

describe("the client's vocabulary", () => {
  test("listed domains and mappings come in the file's names, from the reference's envelope and from the spec's bare list", async () => {
    let bare = false;
    const h = await harness((r) => {
      const list = r.path.endsWith("/domains") ? [apiDomain] : [apiMapping];
      return { body: bare ? list : r.path.endsWith("/domains") ? { domains: list } : { tcpMappings: list } };
    });
    for (const shape of ["enveloped", "bare"]) {
      bare = shape === "bare";
      expect(await h.client.listDomains("c1"), shape).toEqual([domain]);
      expect(await h.client.listTcpMappings("c1"), shape).toEqual([mapping]);
    }
  });

  test("request bodies go out in the API's names; whitelistedIps is sent even when empty; answers come back in the file's names", async () => {
    const h = await harness((r) =>
      r.path.endsWith("/tcp-mappings")
        ? { status: 201, body: { tcpMapping: apiMapping } }
        : r.method === "PATCH"
          ? { body: { domain: apiDomain } }
          : { status: 201, body: { domain: apiDomain, records: [] } },
    );
    expect(await h.client.createTcpMapping("c1", { cubePort: 5432, label: "pg", udp: true, allow: [] }, { idempotencyKey: "k1" })).toEqual(
      mapping,
    );
    expect(
      await h.client.attachDomain("c1", { hostname: "app.example.com", port: 8080, responseCompression: true }, { idempotencyKey: "k2" }),
    ).toEqual({ domain, records: [] });
    expect(await h.client.patchDomain("c1", "d1", { responseCompression: false })).toEqual(domain);
    expect(h.server.received.map((r) => r.body)).toEqual([
      { cubePort: 5432, label: "pg", udpEnabled: true, whitelistedIps: [] },
      { domain: "app.example.com", port: 8080, responseCompression: true },
      { responseCompression: false },
    ]);
  });
});
