/**
 * Issue 36: violations already live and untouched by the change are reported once per rule and what was seen, with their resources: text and
 * markdown name the first few and how many more, GitHub gets one warning per group at its first cube's line, JSON lists every address.
 */
import { expect, test } from "vitest";
import type { ExistingViolations, Plan } from "../../engine/types.js";
import { renderPlan } from "../../reconciler/render/index.js";

const addresses = Array.from({ length: 12 }, (_, i) => `cube/c${i}/domain/www.c${i}.example.com`);
const group: ExistingViolations = {
  rule: "closed-domains",
  enforcement: "advisory",
  check: "deny.domainsWithoutAccessControl",
  saw: "the domain has neither basic auth nor an IP allow list",
  fix: "set basicAuthUser and basicAuthPassword (${env:NAME}), or an ipAllowList, on the domain",
  source: "policy.yaml:5:5",
  count: addresses.length,
  addresses,
};

const plan: Plan = {
  formatVersion: 4,
  createdAt: "2026-01-01T00:00:00.000Z",
  spaceId: "s1",
  changes: [],
  steps: [],
  summary: { add: 0, change: 0, destroy: 0, replace: 0, blocked: 0, unmanaged: 0, mutations: 0, estimatedSeconds: 0 },
  options: { prune: false, allowReplace: false, targets: [], rateLimit: { limit: 10, windowMs: 60_000 } },
  policy: { rules: 1, violations: [], existing: [group] },
};
const ctx = { file: "cubeform.yaml", cubePositions: { c0: { line: 7, col: 5 } }, color: false };

test("text: one entry with the count, five addresses and how many more; the count line counts every resource", () => {
  const text = renderPlan(plan, "text", ctx);
  expect(text).toContain("Policy: 1 rule checked: 12 warnings.");
  expect(text).toContain(`  12 resources: ${addresses.slice(0, 5).join(", ")} and 7 more (all in --format json)`);
  expect(text).toContain(
    "    ! policy closed-domains (advisory, already live and untouched by the change: a warning): the domain has neither basic auth nor an IP allow list",
  );
  expect(text.match(/policy closed-domains/g)).toHaveLength(1);
});

test("markdown: one row; github: one warning at the first cube's line; JSON: every address", () => {
  const markdown = renderPlan(plan, "markdown", ctx);
  expect(markdown.match(/\| :warning: \| 12 resources: <code>cube\/c0\/domain\//g)).toHaveLength(1);
  expect(markdown).toContain("and 7 more (all in --format json)");
  const github = renderPlan(plan, "github", ctx);
  const warnings = github.split("\n").filter((line) => line.startsWith("::warning"));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^::warning file=cubeform\.yaml,line=7,col=5::12 resources \(cube\/c0\/domain\/www\.c0\.example\.com, /);
  const json = JSON.parse(renderPlan(plan, "json", ctx)) as { formatVersion: number; policy: { existing: ExistingViolations[] } };
  expect(json.formatVersion).toBe(5);
  expect(json.policy.existing).toEqual([group]);
});
