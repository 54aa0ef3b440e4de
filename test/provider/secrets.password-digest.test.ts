/**
 * Issue 23 item 8: a Domain's basicAuthPasswordDigest is salted as userDataDigest is (`salt:hmac`):
 * two domains with one password get different digests, neither holds the password's sha256; an
 * unchanged password is no change (also against a bare sha256 an earlier release stored), a new
 * one is an in-place update. Through the real plugin.
 */
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { DIFF_NONE, DIFF_SOME } from "./harness.js";
import { cubeInputs, stackForFile, type Stack } from "./support/stack.js";

const PASSWORD = "hunter2-correct-horse";
const SALTED = /^[0-9a-f]{32}:[0-9a-f]{64}$/;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let stack: Stack;
stackForFile((started) => (stack = started));

it("issue 23 item 8: basicAuthPasswordDigest is salted per resource, and a diff still sees a changed password and only that", async () => {
  const cube = await stack.create("Cube", "web", cubeInputs("web"));
  const inputs = (host: string, password = PASSWORD) => ({
    cubeId: cube.id,
    hostname: `${host}.example.com`,
    port: 8080,
    basicAuthUser: "u",
    basicAuthPassword: password,
  });
  const [a, b] = [await stack.create("Domain", "a", inputs("a")), await stack.create("Domain", "b", inputs("b"))];
  const digests = [a.outs.basicAuthPasswordDigest, b.outs.basicAuthPasswordDigest] as string[];
  for (const digest of digests) {
    expect(digest).toMatch(SALTED);
    expect(digest).not.toContain(sha256(PASSWORD));
  }
  expect(digests[0]).not.toBe(digests[1]);

  expect((await stack.diff(a, inputs("a"))).changes).toBe(DIFF_NONE);
  expect((await stack.diff({ ...a, outs: { ...a.outs, basicAuthPasswordDigest: sha256(PASSWORD) } }, inputs("a"))).changes).toBe(DIFF_NONE);
  const rotated = await stack.update(a, inputs("a", "rotated-654321"));
  expect(rotated.diff.changes).toBe(DIFF_SOME);
  expect(rotated.resource.outs.basicAuthPasswordDigest).toMatch(SALTED);
  expect((await stack.diff(rotated.resource, inputs("a", "rotated-654321"))).changes).toBe(DIFF_NONE);
  expect((await stack.diff(rotated.resource, inputs("a"))).changes).toBe(DIFF_SOME);
});
