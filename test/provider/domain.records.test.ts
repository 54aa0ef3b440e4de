/**
 * A Domain through the plugin: the DNS records in its outputs (a wildcard needs three, the
 * _acme-challenge one DNS-only), the password kept out of outputs (digest only), settings and
 * password changed in place, hostname/port changes replaced delete-first.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DIFF_NONE, DIFF_SOME } from "./harness.js";
import { stackWithCubeForFile, type Resource, type Stack } from "./support/stack.js";

const PASSWORD = "correct-horse-battery-staple";
/** Whether `digest` is the salted digest (`salt:hmac`, issue 23 item 8) of `text`. */
const isDigestOf = (digest: unknown, text: string) =>
  typeof digest === "string" && digest.split(":")[1] === createHmac("sha256", digest.split(":")[0]!).update(text).digest("hex");

let stack: Stack;
let cube: Resource;
stackWithCubeForFile("web", (file) => ({ stack, cube } = file));

describe("Domain resource", () => {
  let wildcard: Resource;
  const wildcardInputs = (extra: Record<string, unknown> = {}) => ({
    cubeId: cube.id,
    hostname: "*.apps.example.com",
    port: 8080,
    basicAuthUser: "admin",
    basicAuthPassword: PASSWORD,
    ...extra,
  });

  it("attaches a wildcard domain and outputs its three DNS records", async () => {
    wildcard = await stack.create("Domain", "apps", wildcardInputs());
    expect(wildcard.id).toMatch(new RegExp(`^${cube.id}/.+`));
    expect(wildcard.outs).toMatchObject({
      cubeId: cube.id,
      hostname: "*.apps.example.com",
      port: 8080,
      isWildcard: true,
      basicAuthUser: "admin",
      basicAuthEnabled: true,
    });
    const records = wildcard.outs.records as { type: string; host: string; mustBeGrey: boolean; proxyOk: boolean; purpose: string }[];
    expect(records).toHaveLength(3);
    expect(records.map((r) => r.purpose).sort()).toEqual(["certificate", "ownership", "routing"]);
    const acme = records.find((r) => r.host.startsWith("_acme-challenge"));
    expect(acme).toMatchObject({ type: "CNAME", mustBeGrey: true, proxyOk: false });
    expect(records.find((r) => r.purpose === "routing")).toMatchObject({ type: "CNAME", proxyOk: true });
  });

  it("keeps only a digest of the password in outputs", async () => {
    expect(JSON.stringify(wildcard.outs)).not.toContain(PASSWORD);
    expect(isDigestOf(wildcard.outs.basicAuthPasswordDigest, PASSWORD)).toBe(true);
  });

  it("an ordinary subdomain needs one CNAME record", async () => {
    const app = await stack.create("Domain", "app", { cubeId: cube.id, hostname: "app.example.com", port: 3000 });
    expect((app.outs.records as { type: string }[]).map((r) => r.type)).toEqual(["CNAME"]);
    expect(app.outs.isWildcard).toBe(false);
    await stack.destroy(app);
  });

  it("reports no change for the same inputs", async () => {
    expect((await stack.diff(wildcard, wildcardInputs())).changes).toBe(DIFF_NONE);
  });

  it("changes settings and the password in place", async () => {
    const settings = await stack.update(wildcard, wildcardInputs({ responseCompression: true, ipAllowList: ["198.51.100.0/24"] }));
    expect(settings.diff).toEqual({ changes: DIFF_SOME, replaces: [], deleteBeforeReplace: false });
    expect(settings.resource.outs).toMatchObject({ responseCompression: true, ipAllowList: ["198.51.100.0/24"] });
    const password = await stack.update(
      settings.resource,
      wildcardInputs({ responseCompression: true, ipAllowList: ["198.51.100.0/24"], basicAuthPassword: "another-password" }),
    );
    expect(password.diff).toEqual({ changes: DIFF_SOME, replaces: [], deleteBeforeReplace: false });
    expect(isDigestOf(password.resource.outs.basicAuthPasswordDigest, "another-password")).toBe(true);
    wildcard = password.resource;
  });

  it("replaces the domain, deleting first, when the hostname or port changes", async () => {
    const base = { responseCompression: true, ipAllowList: ["198.51.100.0/24"], basicAuthPassword: "another-password" };
    expect(await stack.diff(wildcard, wildcardInputs({ ...base, port: 9090 }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["port"],
      deleteBeforeReplace: true,
    });
    expect(await stack.diff(wildcard, wildcardInputs({ ...base, hostname: "*.web.example.com" }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["hostname"],
      deleteBeforeReplace: true,
    });
  });
});
