import { expect, test } from "vitest";
import { APPLY, FLEET, describeRun, project, waitFor, type Project } from "./support.js";

interface JsonRecord {
  type: "CNAME" | "TXT" | "A";
  host: string;
  value: string;
  state: string;
  mustBeGrey: boolean;
}
interface JsonDns {
  complete: boolean;
  cube: { name: string };
  domains: { hostname: string; complete: boolean; records: JsonRecord[] }[];
}

async function appliedFleet(): Promise<Project> {
  const p = await project({ "cubeform.yaml": FLEET });
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);
  return p;
}

async function dnsJson(p: Project, ...args: string[]): Promise<JsonDns> {
  const run = await p.run(["dns", "web", ...args, "--format", "json", "--rate-limit", "1000/60"]);
  expect(run.code, describeRun(run)).toBe(0);
  return JSON.parse(run.stdout) as JsonDns;
}

test("dns --format json lists every record of every domain with its live state; zone prints BIND lines", async () => {
  const p = await appliedFleet();
  const json = await dnsJson(p);
  expect(json.complete).toBe(false);
  expect(json.domains.map((d) => [d.hostname, d.records.map((r) => `${r.type} ${r.host} ${r.state}`)])).toEqual([
    [
      "*.e2e.example.com",
      ["TXT _krova-verify.e2e.example.com missing", "CNAME *.e2e.example.com missing", "CNAME _acme-challenge.e2e.example.com missing"],
    ],
    ["www.e2e.example.com", ["CNAME www.e2e.example.com missing"]],
  ]);

  const zone = await p.run(["dns", "web", "*.e2e.example.com", "--format", "zone"]);
  expect(zone.code, describeRun(zone)).toBe(0);
  const acme = json.domains[0]?.records.find((r) => r.host.startsWith("_acme-challenge"));
  expect(zone.stdout).toContain(`_acme-challenge.e2e.example.com. 300 IN CNAME ${acme?.value}. ; DNS only (grey cloud)`);
  expect(zone.stdout).toMatch(/^_krova-verify\.e2e\.example\.com\. 300 IN TXT "krova-verify=[^"]+"$/m);
  expect(zone.stdout).toContain("*.e2e.example.com. 300 IN CNAME dns.krova.cloud.");
  expect(zone.stdout).not.toContain("www.e2e.example.com");
});

test("dns (table) shows missing as not published yet and unknown as could not check, and exits 0", async () => {
  const p = await appliedFleet();
  p.emu.admin.setDnsUnavailable("www.e2e.example.com", true);
  const run = await p.run(["dns", "web"]);
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.stdout).toMatch(/CNAME\s+_acme-challenge\.e2e\.example\.com\s+\S+\s+not published yet\s+DNS only \(grey cloud\)/);
  expect(run.stdout).toMatch(/CNAME\s+www\.e2e\.example\.com\s+dns\.krova\.cloud\s+could not check\s+may be proxied/);
  // The text format is called text, as in every other command; the old name still works.
  const text = await p.run(["dns", "web", "--format", "text"]);
  expect(text.code, describeRun(text)).toBe(0);
  expect(text.stdout).toBe(run.stdout);
  expect((await p.run(["dns", "web", "--format", "table"])).stdout).toBe(run.stdout);
});

test("dns --wait completes once the needed records are published while it polls", async () => {
  const p = await appliedFleet();
  const needed = (await dnsJson(p)).domains.flatMap((d) => d.records);
  const waiting = p.start(["dns", "web", "--wait", "--interval", "50ms", "--timeout", "30s", ...["--rate-limit", "1000/60"]]);
  await waitFor(() => waiting.stderr().includes("waiting for DNS: 0 of 4 records found"), {
    timeoutMs: 10_000,
    message: "dns --wait to start polling",
  });
  for (const r of needed) p.emu.admin.publishDns({ type: r.type, host: r.host, value: r.value });
  const run = await waiting.exited;
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.stdout).toContain("*.e2e.example.com  (complete)");
  expect(run.stdout).toContain("www.e2e.example.com  (complete)");
});

test("dns --wait that times out exits 1 and names what is still missing", async () => {
  const p = await appliedFleet();
  const run = await p.run(["dns", "web", "www.e2e.example.com", "--wait", "--interval", "50ms", "--timeout", "300ms"]);
  expect(run.code, describeRun(run)).toBe(1);
  expect(run.stderr).toContain(
    'Error: DNS of cube "web" is not complete after 300ms; still needed: CNAME www.e2e.example.com → dns.krova.cloud (not published yet)',
  );
});

test("dns names an unknown cube or domain clearly", async () => {
  const p = await appliedFleet();
  const noCube = await p.run(["dns", "nope"]);
  expect(noCube.code).toBe(1);
  expect(noCube.stderr).toContain('Error: no cube named (or with id) "nope" in this space');
  const noDomain = await p.run(["dns", "db", "x.example.com"]);
  expect(noDomain.code).toBe(1);
  expect(noDomain.stderr).toContain('Error: cube "db" has no domain x.example.com (attached: none)');
});
