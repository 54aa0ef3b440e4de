/**
 * Webhook endpoints as desired state through the bin: created with the secret written to a 0600
 * file (and nowhere else), unchanged on the next plan, replaced (new secret) on a change, a
 * dashboard delete reported by drift and repaired by apply, unmanaged endpoints pruned only
 * with prune, bad event names refused with file:line:col.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { APPLY, RATE, SSH_KEY, describeRun, project, type Project } from "./support.js";

const URL = "http://127.0.0.1:9/cube";

function fleet(webhooks: string, extra = ""): string {
  return `apiVersion: cubeform/v1
${extra}defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
cubes:
  - name: web
webhooks:
${webhooks}`;
}

const HOOK = `  - url: ${URL}
    events: [cube.deleted, domain.removed]
    description: gitops
    secretFile: secrets/hook.secret
`;

/** Every file the run left in the project (plans, journals, logs) and every stream. */
function everythingPrinted(p: Project, ...runs: { stdout: string; stderr: string }[]): string {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!path.endsWith(".secret")) files.push(readFileSync(path, "utf8"));
    }
  };
  walk(p.cwd);
  return [...files, ...runs.flatMap((r) => [r.stdout, r.stderr])].join("\n");
}

test("an endpoint is created with its secret in a 0600 file only; a change replaces it with a new secret", async () => {
  const p = await project({ "cubeform.yaml": fleet(HOOK) });
  const planned = await p.run(["plan", "--out", "plan.json", ...RATE]);
  expect(planned.code, describeRun(planned)).toBe(2);
  expect(planned.stdout).toContain(`webhook/${URL}`);
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);

  const secretPath = join(p.cwd, "secrets", "hook.secret");
  const secret = readFileSync(secretPath, "utf8").trim();
  expect(secret).toMatch(/^whsec_/);
  expect(statSync(secretPath).mode & 0o777).toBe(0o600);
  const [listed] = await p.api.listWebhooks();
  const live = await p.api.getWebhook(listed!.id);
  expect([live.url, [...live.events].sort(), live.description]).toEqual([URL, ["cube.deleted", "domain.removed"], "gitops"]);

  const again = await p.run(["plan", ...RATE]);
  expect(again.code, describeRun(again)).toBe(0);

  // A change is a replacement (the API has no PATCH), shown as one, with a new secret.
  await import("node:fs").then((fs) =>
    fs.writeFileSync(join(p.cwd, "cubeform.yaml"), fleet(HOOK.replace("domain.removed", "tcp_mapping.removed"))),
  );
  const replacePlan = await p.run(["plan", "--format", "json", ...RATE]);
  expect(replacePlan.code, describeRun(replacePlan)).toBe(2);
  const change = JSON.parse(replacePlan.stdout) as {
    resource_changes?: unknown;
    changes?: { address: string; action?: string; actions?: string[] }[];
  };
  expect(JSON.stringify(change)).toMatch(/"delete","create"|delete-then-create/);
  const replaced = await p.run(APPLY);
  expect(replaced.code, describeRun(replaced)).toBe(0);
  const newSecret = readFileSync(secretPath, "utf8").trim();
  expect(newSecret).toMatch(/^whsec_/);
  expect(newSecret).not.toBe(secret);
  expect((await p.api.listWebhooks()).map((w) => [...w.events].sort())).toEqual([["cube.deleted", "tcp_mapping.removed"]]);

  const printed = everythingPrinted(p, planned, applied, again, replacePlan, replaced);
  expect(printed.includes(secret), "first secret printed or stored").toBe(false);
  expect(printed.includes(newSecret), "second secret printed or stored").toBe(false);
});

test("drift reports a deleted endpoint, apply repairs it; unmanaged endpoints are pruned only with prune", async () => {
  const p = await project({ "cubeform.yaml": fleet(HOOK) });
  expect((await p.run(APPLY)).code).toBe(0);
  const [hook] = await p.api.listWebhooks();
  await p.api.deleteWebhook(hook!.id);
  const other = await p.api.createWebhook({ url: "http://127.0.0.1:9/other", events: ["cube.created"] });

  const drift = await p.run(["drift", ...RATE]);
  expect(drift.code, describeRun(drift)).toBe(2);
  expect(drift.stdout).toContain(`webhook/${URL}`);
  expect(drift.stdout.includes(other.secret)).toBe(false);

  expect((await p.run(APPLY)).code).toBe(0);
  expect((await p.api.listWebhooks()).map((w) => w.url).sort()).toEqual([URL, "http://127.0.0.1:9/other"]);

  await import("node:fs").then((fs) => fs.writeFileSync(join(p.cwd, "cubeform.yaml"), fleet(HOOK, "prune: true\n")));
  const pruned = await p.run(APPLY);
  expect(pruned.code, describeRun(pruned)).toBe(0);
  expect((await p.api.listWebhooks()).map((w) => w.url)).toEqual([URL]);
});

test("an event name outside the API's list is refused at its position, nothing sent", async () => {
  const p = await project({ "cubeform.yaml": fleet(HOOK.replace("domain.removed", "domain.exploded")) });
  const validated = await p.run(["apply", "--auto-approve", ...RATE]);
  expect(validated.code).toBe(1);
  expect(validated.stderr).toMatch(/cubeform\.yaml:\d+:\d+: webhooks\[0\]\.events\[1\]/);
  expect(p.mutations()).toBe(0);
});
