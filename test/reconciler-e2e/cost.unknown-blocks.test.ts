/**
 * Issue 31 item 11: with a budget set, a cost that cannot be known blocks: the 11 ways GET /pricing
 * fails and hostile prices. `plan --fail-on blocked` exits 2 (as a plan over the budget does), apply
 * creates nothing; --allow-unknown-cost goes ahead knowingly; a hanging /pricing costs seconds.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { expect, test } from "vitest";
import { PRICING } from "../../emulator/resources/catalog.js";
import type { RunningEmulator } from "../../emulator/index.js";
import { APPLY, RATE, describeRun, listenOnLoopback, plainFleet, project } from "./support.js";

type Answer = (res: ServerResponse, req: IncomingMessage) => void;

const json =
  (status: number, text: string, type = "application/json"): Answer =>
  (res) => {
    res.writeHead(status, { "content-type": type });
    res.end(text);
  };
const prices = (change: (p: typeof PRICING) => unknown): Answer => json(200, JSON.stringify(change(structuredClone(PRICING))));

/** The 11 failure modes of GET /pricing the issue lists. */
const FAILURES: Record<string, Answer> = {
  "500": json(500, JSON.stringify({ error: "boom" })),
  "503": json(503, JSON.stringify({ error: "unavailable" })),
  "404": json(404, JSON.stringify({ error: "not found" })),
  hang: () => {},
  reset: (_res, req) => req.socket.destroy(),
  garbage: json(200, "\u0000\u0001garbage{{"),
  html: json(200, "<!doctype html><html><body>Maintenance</body></html>", "text/html"),
  empty: json(200, ""),
  "{}": json(200, "{}"),
  null: json(200, "null"),
  NaN: json(200, JSON.stringify(PRICING).replace('"vcpuPerHour":0.004', '"vcpuPerHour":NaN')),
};

/** Prices that parse but cannot price a fleet. */
const HOSTILE: Record<string, Answer> = {
  "negative rates": prices((p) => ({ ...p, rates: { vcpuPerHour: -5, ramGbPerHour: -5, diskGbPerHour: -5 } })),
  "zero rates": prices((p) => ({ ...p, rates: { vcpuPerHour: 0, ramGbPerHour: 0, diskGbPerHour: 0 } })),
  "zero multiplier": prices((p) => ({ ...p, tiers: p.tiers.map((t) => ({ ...t, multiplier: 0 })) })),
  "1 hours a month": prices((p) => ({ ...p, note: "Billed 1 hours a month." })),
  "1e308": prices((p) => ({ ...p, rates: { vcpuPerHour: 1e308, ramGbPerHour: 1e308, diskGbPerHour: 1e308 } })),
};

/** The API through a loopback proxy that answers GET /pricing with `answer` and forwards the rest. */
async function pricingProxy(emu: RunningEmulator, answer: Answer): Promise<string> {
  const server = createServer(async (req, res) => {
    if (req.method === "GET" && (req.url ?? "").split("?")[0]?.endsWith("/pricing")) return answer(res, req);
    let body = "";
    for await (const chunk of req) body += (chunk as Buffer).toString();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
    const method = req.method ?? "GET";
    const upstream = await fetch(`${emu.origin}${req.url}`, { method, headers, ...(method !== "GET" && body !== "" ? { body } : {}) });
    const out: Record<string, string> = { "content-type": upstream.headers.get("content-type") ?? "application/json" };
    const replayed = upstream.headers.get("idempotency-replayed");
    if (replayed !== null) out["idempotency-replayed"] = replayed;
    res.writeHead(upstream.status, out);
    res.end(await upstream.text());
  });
  return `http://127.0.0.1:${await listenOnLoopback(server)}/api/v1`;
}

const BUDGET = `${plainFleet("web")}budget: { monthly: 5 }\n`;
/** Every plan here bounds the prices' read (the hang) to a second. */
const PRICING_TIMEOUT = ["--pricing-timeout", "1s"];

test.each(Object.entries({ ...FAILURES, ...HOSTILE }))(
  "item 11: /pricing %s with a budget set blocks: plan --fail-on blocked exits 2, apply creates nothing",
  async (_mode, answer) => {
    const p = await project({ "cubeform.yaml": BUDGET });
    const env = { CUBE_API_URL: await pricingProxy(p.emu, answer) };
    const started = Date.now();
    const plan = await p.run(["plan", ...RATE, ...PRICING_TIMEOUT, "--fail-on", "blocked"], env);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(plan.code, describeRun(plan)).toBe(2);
    expect(plan.stdout.replace(/\n {2,}/g, " ")).toMatch(
      /Cost: unknown \(.+\)\.\nBlocked by the budget: the change may add cost and its cost cannot be known, with a budget of 5\.00\/month/,
    );
    expect(plan.stderr).toContain("changes are refused until the prices can be read (--allow-unknown-cost");
    const apply = await p.run([...APPLY, ...PRICING_TIMEOUT], env);
    expect(apply.code, describeRun(apply)).toBe(1);
    expect(apply.stderr).toContain("refusing to apply: the change may add cost and its cost cannot be known");
    expect(p.mutations()).toBe(0);
  },
);

test("item 11: --allow-unknown-cost goes ahead knowingly; without a budget the cost is only unknown; a hang takes the timeout, not minutes", async () => {
  const p = await project({ "cubeform.yaml": BUDGET });
  const env = { CUBE_API_URL: await pricingProxy(p.emu, HOSTILE["negative rates"]!) };
  const allowed = await p.run([...APPLY, "--allow-unknown-cost"], env);
  expect(allowed.code, describeRun(allowed)).toBe(0);
  expect(allowed.stdout).toContain("the budget of 5.00/month is not checked");
  expect((await p.api.listCubes()).map((c) => c.name)).toEqual(["web"]);

  const hang = { CUBE_API_URL: await pricingProxy(p.emu, FAILURES.hang!) };
  const { writeFileSync } = await import("node:fs");
  writeFileSync(`${p.cwd}/cubeform.yaml`, plainFleet("web", "db"));
  const started = Date.now();
  const plan = await p.run(["plan", ...RATE, "--pricing-timeout", "2s", "--fail-on", "blocked"], hang);
  const seconds = (Date.now() - started) / 1000;
  expect(plan.code, describeRun(plan)).toBe(0);
  expect(plan.stdout.replace(/\n {2,}/g, " ")).toContain("Cost: unknown (GET /pricing failed: ");
  expect(plan.stdout).not.toContain("Blocked by the budget");
  expect(seconds).toBeLessThan(8);
  console.info(`plan against a hanging /pricing with --pricing-timeout 2s: ${seconds.toFixed(1)} s`);
});
