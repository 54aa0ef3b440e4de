import { describe, expect, test } from "vitest";
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  isCubeApiError,
  NotFoundError,
  ProxyProtocolMismatchError,
  TerminationProtectedError,
  UnauthorizedError,
  UnprocessableError,
} from "../../client/index.js";
import { useHarness } from "./support/client.js";

const harness = useHarness();
const PROTECTED_MESSAGE = "This Cube has termination protection on. Turn it off before deleting.";

describe("HTTP statuses become typed errors carrying the server's message", () => {
  test.each([
    [400, BadRequestError, "bad_request"],
    [401, UnauthorizedError, "unauthorized"],
    [403, ForbiddenError, "forbidden"],
    [404, NotFoundError, "not_found"],
    [409, ConflictError, "conflict"],
    [422, UnprocessableError, "unprocessable"],
  ] as const)("%i → %s", async (status, type, code) => {
    const h = await harness(() => ({ status, body: { error: `server says ${status}` } }));
    const err = await h.client.restart("c1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect(isCubeApiError(err)).toBe(true);
    expect(err).toMatchObject({ code, status, method: "POST", path: "/spaces/s1/cubes/c1/restart" });
    expect((err as Error).message).toContain(`server says ${status}`);
  });

  test("DELETE of a protected cube: the typed 409 carries the cube", async () => {
    const cube = { id: "c1", terminationProtectionChangedAt: "2026-05-01T00:00:00Z", terminationProtectionChangedBy: "user:u1" };
    const h = await harness(() => ({ status: 409, body: { error: { code: "termination_protected", message: PROTECTED_MESSAGE, cube } } }));
    const err = await h.client.deleteCube("c1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminationProtectedError);
    expect(err).toMatchObject({ code: "termination_protected", status: 409, cubeId: "c1", cube });
    expect((err as Error).message).toContain(PROTECTED_MESSAGE);
  });

  test("a termination_protected 409 without a cube block falls back to the path id and null timestamps", async () => {
    const h = await harness(() => ({ status: 409, body: { error: { code: "termination_protected", message: PROTECTED_MESSAGE } } }));
    const err = await h.client.deleteCube("cube/with slash").catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "termination_protected",
      cubeId: "cube/with slash",
      cube: { id: "cube/with slash", terminationProtectionChangedAt: null, terminationProtectionChangedBy: null },
    });
  });

  test("the PROXY-protocol 409 is typed with the port and the other domains", async () => {
    const body = {
      error: "Domains b.example.com use PROXY v2 on port 80",
      errorMeta: { code: "proxy_protocol_port_mismatch", port: 80, domains: ["b.example.com"] },
    };
    const h = await harness(() => ({ status: 409, body }));
    const err = await h.client.patchDomain("c1", "d1", { proxyProtocol: null }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProxyProtocolMismatchError);
    expect(err).toMatchObject({ code: "proxy_protocol_port_mismatch", port: 80, domains: ["b.example.com"] });
  });

  test("a non-JSON error body still gives a typed error", async () => {
    const h = await harness(() => ({ status: 404, raw: "Not Found" }));
    await expect(h.client.getCube("c1")).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("Not Found") });
  });

  test("a request that outlives timeoutMs is a timeout error", async () => {
    const h = await harness(() => new Promise(() => {}), { timeoutMs: 100, retry: { maxRetries: 0 } });
    await expect(h.client.getCube("c1")).rejects.toMatchObject({ code: "timeout", method: "GET" });
  });

  test("a refused connection is a network error", async () => {
    const h = await harness(() => ({ body: {} }));
    await h.server.close();
    await expect(h.client.getCube("c1")).rejects.toMatchObject({ code: "network_error", retries: 4 });
  });

  test("JSON.stringify of an error gives its code and context", async () => {
    const h = await harness(() => ({ status: 404, body: { error: "Cube not found" } }));
    const err = await h.client.getCube("c9").catch((e: unknown) => e);
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      name: "NotFoundError",
      code: "not_found",
      status: 404,
      method: "GET",
      path: "/spaces/s1/cubes/c9",
      message: "Cube API 404 on GET /spaces/s1/cubes/c9: Cube not found",
      retries: 0,
    });
  });
});
