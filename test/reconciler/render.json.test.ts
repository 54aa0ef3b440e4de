import { PassThrough } from "node:stream";
import { expect, test } from "vitest";
import type { Plan, ResourceChange } from "../../engine/types.js";
import { JSON_FORMAT_VERSION, leanChange, renderDrift, renderPlan, writePlan } from "../../reconciler/render/index.js";
import { jsonChunks } from "../../reconciler/render/json.js";

const view = { id: "x", name: "web" };
const change = (over: Partial<ResourceChange>): ResourceChange => ({
  address: "cube/web",
  kind: "cube",
  cubeName: "web",
  id: "c1",
  action: "noop",
  before: view,
  after: view,
  changes: [],
  ...over,
});

function planOf(changes: ResourceChange[]): Plan {
  return {
    formatVersion: 4,
    createdAt: "2026-01-01T00:00:00.000Z",
    spaceId: "s1",
    changes,
    steps: [{ op: "power-off", address: "cube/db", cube: { cubeName: "db", cubeId: "c2" } }],
    summary: { add: 0, change: 1, destroy: 0, replace: 0, blocked: 0, unmanaged: 1, mutations: 1, estimatedSeconds: 0 },
    priorStateDigest: "abc",
    priorState: { spaceId: "s1", cubes: [] },
    options: { prune: false, allowReplace: false, targets: [], rateLimit: { limit: 10, windowMs: 60_000 } },
  };
}

const changes = [
  change({}),
  change({
    address: "cube/db",
    cubeName: "db",
    id: "c2",
    action: "update",
    changes: [{ path: "power", before: "running", after: "stopped", forcesReplace: false }],
  }),
  change({ address: "cube/old", cubeName: "old", id: "c3", unmanaged: true }),
  change({ address: "cube/dup", cubeName: "dup", id: null, blocked: { code: "ambiguous_name", reason: "two" } }),
];

test("plan JSON is compact JSON of the lean plan: neither priorState nor its digest, noop bodies dropped unless blocked or unmanaged", () => {
  const plan = planOf(changes);
  const { priorState: _prior, priorStateDigest: _digest, ...rest } = plan;
  const expected = { ...rest, formatVersion: JSON_FORMAT_VERSION, changes: changes.map(leanChange) };
  const text = renderPlan(plan, "json", { file: "f.yaml", cubePositions: {}, color: false });
  expect(text).toBe(`${JSON.stringify(expected)}\n`);
  const printed = JSON.parse(text) as { changes: Record<string, unknown>[] };
  expect(printed.changes.map((c) => "before" in c)).toEqual([false, true, true, true]);
});

test("streamed plan JSON equals the rendered string, also with no changes", async () => {
  for (const plan of [planOf(changes), planOf([])]) {
    const out = new PassThrough();
    const received: Buffer[] = [];
    out.on("data", (b: Buffer) => received.push(b));
    await writePlan(out, plan, "json", { file: "f.yaml", cubePositions: {}, color: false });
    out.end();
    await new Promise((resolve) => out.on("end", resolve));
    expect(Buffer.concat(received).toString("utf8")).toBe(renderPlan(plan, "json", { file: "f.yaml", cubePositions: {}, color: false }));
  }
});

test("drift JSON nests the lean plan", () => {
  const plan = planOf(changes);
  const { priorState: _prior, priorStateDigest: _digest, ...rest } = plan;
  const text = renderDrift({ formatVersion: 1, plan, dns: [] }, "json", { file: "f.yaml", cubePositions: {}, color: false });
  const expected = {
    formatVersion: JSON_FORMAT_VERSION,
    plan: { ...rest, formatVersion: JSON_FORMAT_VERSION, changes: changes.map(leanChange) },
    dns: [],
  };
  expect(text).toBe(`${JSON.stringify(expected)}\n`);
});

test("jsonChunks writes exactly JSON.stringify(value) at any depth", () => {
  const value = {
    a: [1, { b: [], c: {}, d: undefined, e: null, f: 'line\nbreak "quoted"' }, [[]], undefined],
    g: { h: { i: [true, false, 0.5] } },
    empty: [],
    none: {},
    skipped: undefined,
  };
  for (const depth of [0, 1, 2, 3, 6]) {
    expect([...jsonChunks(value, depth)].join("")).toBe(`${JSON.stringify(value)}\n`);
  }
  expect([...jsonChunks([])].join("")).toBe("[]\n");
});

test("jsonChunks: a long list (stringified in groups of items) is still exactly JSON.stringify, at every nesting", () => {
  const item = (i: number) => ({
    address: `cube/c${i}`,
    changes: i % 3 === 0 ? [] : [{ path: "a]\n[", before: [i], after: null }],
    nested: { list: [[], [i]] },
    gone: undefined,
  });
  const list = [...Array.from({ length: 1300 }, (_, i) => item(i)), undefined, "]", [], {}];
  const value = { formatVersion: 2, plan: { changes: list, steps: [] }, top: list };
  for (const depth of [1, 2, 3, 4]) {
    expect([...jsonChunks(value, depth)].join("")).toBe(`${JSON.stringify(value)}\n`);
  }
  expect([...jsonChunks(list, 0)].join("")).toBe(`${JSON.stringify(list)}\n`);
});

test("issue 21 item 3: the source revision is in the text, markdown and github plans, its values escaped for each", () => {
  const source = {
    repo: "file:///srv/a|b_*c*.git",
    ref: "main",
    revision: "0123456789abcdef0123456789abcdef01234567",
    path: "fleet\n::error::x",
  };
  const ctx = { file: "fleet", cubePositions: {}, color: false };
  const plan = { ...planOf([change({})]), source };
  expect(renderPlan(plan, "text", ctx)).toContain(
    "Source: file:///srv/a|b_*c*.git main at commit 0123456789abcdef0123456789abcdef01234567 (fleet\\n::error::x)\n",
  );
  expect(renderPlan(plan, "markdown", ctx)).toContain(
    "Source: <code>file\\:///srv/a\\|b\\_\\*c\\*.git</code> <code>main</code> at commit <code>0123456789ab</code> (<code>fleet\\\\n::error::x</code>)\n",
  );
  const github = renderPlan(plan, "github", ctx);
  expect(github).toContain("(fleet\\n::error::x)");
  expect(github).not.toMatch(/^::error::x/m);
});

test("issue 31 item 20: over the budget, JSON summary.blocked counts the changes the budget blocks (apply makes none of them)", () => {
  const ctx = { file: "f.yaml", cubePositions: {}, color: false };
  const big = change({ address: "cube/big", cubeName: "big", id: null, action: "create", before: null, after: view });
  const cost = {
    currency: "EUR",
    hoursPerMonth: 730,
    stoppedBills: "disk" as const,
    note: "",
    before: 9.49,
    after: 52.85,
    delta: 43.36,
    tiers: [],
    cubes: [],
  };
  const within = { ...planOf([...changes, big]), cost: { ...cost, budget: { monthly: 250, over: false } } };
  const over = { ...planOf([...changes, big]), cost: { ...cost, budget: { monthly: 40, over: true, top: ["big"] } } };
  const summaryOf = (plan: Plan) => (JSON.parse(renderPlan(plan, "json", ctx)) as { summary: Plan["summary"] }).summary;
  expect(summaryOf(within).blocked).toBe(0);
  // cube/db's update and cube/big's create; cube/dup was blocked on its own already (planOf's summary says 0: the counting adds 2).
  expect(summaryOf(over).blocked).toBe(2);
});
