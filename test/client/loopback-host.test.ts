// The client sends plain http only to this machine, and never sends this machine's requests through a proxy: both ask one question.
import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../client/light.js";

describe("isLoopbackHost: one answer for the base-URL check and the proxy bypass", () => {
  it.each([
    "localhost",
    "LOCALHOST.",
    "api.localhost",
    "127.0.0.1",
    "127.255.3.4",
    "[::1]",
    "::1",
    "0:0:0:0:0:0:0:1",
    "[::ffff:127.0.0.1]",
    "::ffff:7f00:1",
  ])("%s is this machine", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(["example.com", "localhost.example.com", "128.0.0.1", "10.0.0.1", "[::2]", "::ffff:10.0.0.1", "1227.0.0.1"])(
    "%s is not",
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );
});
