/**
 * A cube's userData (which a Fleet fills from `${env:…}`) is kept in Pulumi's state only as a
 * secret, and its digest in the outputs is salted: two cubes with the same script get different
 * digests, neither is the script's plain sha256, and a changed script is still a replacement.
 * Through the real plugin, driven as `pulumi up` drives it (issue 23 #8).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SSH_KEY } from "./support/stack.js";
import { upStackForFile, type UpStack } from "./support/up.js";

const TOKEN = "tok-4f1c9e2a77d3";
const SCRIPT = `#cloud-config\nruncmd:\n  - echo ${TOKEN} > /etc/agent-token\n`;

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Cube } from "cubeform/provider";
const userData = new pulumi.Config().require("userData");
const base = { image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: ${JSON.stringify(SSH_KEY)}, userData };
export const a = new Cube("a", base).userDataDigest;
export const b = new Cube("b", base).userDataDigest;
`;

let stack: UpStack;
upStackForFile("userdata", { "index.ts": PROGRAM }, (file) => (stack = file.stack));

type Entry = { inputs: Record<string, unknown>; outs: Record<string, unknown> };
const SECRET_SIG = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

describe("userData in Pulumi state", () => {
  it("is a secret input, its digest is salted per resource, and a changed script is still a replacement", {
    timeout: 120_000,
  }, async () => {
    const [first, second] = await stack.up("index.ts", { programConfig: { userData: SCRIPT }, runs: 2 });
    expect(first!.error).toBeNull();
    expect(first!.steps.map((s) => s.op)).toEqual(["create", "create"]);
    expect(second!.steps.map((s) => s.op)).toEqual(["same", "same"]);

    const text = readFileSync(stack.statePath, "utf8");
    expect(text.includes(TOKEN), "the script in plain text in the state").toBe(false);
    const entries = Object.values(JSON.parse(text) as Record<string, Entry>);
    for (const entry of entries) expect(entry.inputs.userData).toMatchObject(SECRET_SIG);

    const [a, b] = [first!.outputs.a, first!.outputs.b] as string[];
    const plainSha = createHash("sha256").update(SCRIPT).digest("hex");
    expect(a).not.toBe(b);
    for (const digest of [a, b]) expect(digest).not.toContain(plainSha);

    const [changed] = await stack.up("index.ts", { programConfig: { userData: SCRIPT.replace(TOKEN, "tok-rotated") } });
    expect(changed!.error).toBeNull();
    expect(changed!.steps.map((s) => [s.op, s.replaces])).toEqual([
      ["replace", ["userData"]],
      ["replace", ["userData"]],
    ]);
  });
});
