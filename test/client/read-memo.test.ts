/**
 * A watch's repeated reads (client/read-memo.ts): every read is still sent; an answer with the
 * same text as last time gives the same result objects (not parsed nor validated again); a
 * changed answer is parsed and validated as any other.
 */
import { expect, test } from "vitest";
import { ReadMemo } from "../../client/read-memo.js";
import { useHarness } from "./support/client.js";
import { sampleCube } from "./support/server.js";

const harness = useHarness();

const mapping = (id: string, cubePort: number) => ({
  id,
  cubeId: "c1",
  cubePort,
  hostPort: 30_000 + cubePort,
  host: "c1.cubes.example",
  label: null,
  status: "active",
  isSsh: cubePort === 22,
  udpEnabled: false,
  whitelistedIps: [],
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
});

test("an unchanged answer is read again but gives the same objects; a changed one is parsed anew", async () => {
  let ports = [22];
  const h = await harness(
    (r) =>
      r.path.endsWith("/tcp-mappings")
        ? { body: { tcpMappings: ports.map((p) => mapping(`m${p}`, p)) } }
        : { body: { cubes: [sampleCube("c1")] } },
    {
      readMemo: new ReadMemo(),
    },
  );
  const first = await h.client.listTcpMappings("c1");
  const second = await h.client.listTcpMappings("c1");
  expect(second).toBe(first);
  expect(h.server.received).toHaveLength(2);
  expect(h.client.stats.reads).toBe(2);

  ports = [22, 5432];
  const third = await h.client.listTcpMappings("c1");
  expect(third).not.toBe(first);
  expect(third.map((m) => m.cubePort)).toEqual([22, 5432]);
  expect(first.map((m) => m.cubePort)).toEqual([22]);
  expect(h.server.received).toHaveLength(3);
});

test("a changed answer that breaks the schema fails as without the memo", async () => {
  let broken = false;
  const h = await harness(() => ({ body: { tcpMappings: [broken ? { ...mapping("m22", 22), cubePort: "22" } : mapping("m22", 22)] } }), {
    readMemo: new ReadMemo(),
  });
  await h.client.listTcpMappings("c1");
  broken = true;
  await expect(h.client.listTcpMappings("c1")).rejects.toThrow(/unexpected response body at tcpMappings\.0\.cubePort/);
});

test("without a memo every answer is parsed anew (a plan)", async () => {
  const h = await harness(() => ({ body: { tcpMappings: [mapping("m22", 22)] } }));
  const first = await h.client.listTcpMappings("c1");
  expect(await h.client.listTcpMappings("c1")).not.toBe(first);
  expect(await h.client.listTcpMappings("c1")).toEqual(first);
});

test("an answer not read again during the next round is forgotten", () => {
  const memo = new ReadMemo();
  memo.remember("/a", "[1]", [1]);
  memo.remember("/b", "[2]", [2]);
  memo.nextRound();
  expect(memo.same("/a", "[1]")?.body).toEqual([1]);
  expect(memo.same("/a", "[9]")).toBeUndefined();
  memo.nextRound();
  // /b was not read in the round before: gone; /a was.
  expect(memo.same("/b", "[2]")).toBeUndefined();
  expect(memo.same("/a", "[1]")?.body).toEqual([1]);
});
