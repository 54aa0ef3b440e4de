/** engine/preview.ts: a fleet's desired state → one preview's; live cube names → previews; which previews a sweep removes. */
import { describe, expect, test } from "vitest";
import {
  findPreviews,
  previewDesiredState,
  previewIdOf,
  previewMonthly,
  sweepSelection,
  withOthersClaimed,
  type DesiredCubeSpec,
  type DesiredState,
  type LiveCube,
} from "../../engine/index.js";

const cube = (name: string, extra: Partial<DesiredCubeSpec> = {}): DesiredCubeSpec => ({
  name,
  image: "ubuntu-24.04",
  resources: { vcpu: 4, ramGb: 8, diskGb: 50 },
  sshPublicKey: "ssh-ed25519 AAAA test",
  lifecycle: { allowReplace: false, ignoreChanges: [] },
  domains: [
    { hostname: `${name}.example.com`, port: 8080, settings: { responseCompression: true }, basicAuthPassword: { env: "PREVIEW_PW" } },
    { hostname: `admin.${name}.example.com`, port: 9090, settings: {} },
  ],
  ports: [{ cubePort: 5432, label: "pg" } as never],
  ...extra,
});

const fleet = (
  preview: DesiredState["preview"],
  cubes = [
    cube("api", { terminationProtection: true, id: "cube_pinned" }),
    cube("web-1", { group: { group: "web", index: 1 } }),
    cube("web-2", { group: { group: "web", index: 2 } }),
  ],
): DesiredState => ({
  prune: true,
  spaceId: "sp_fleet",
  budget: { monthly: 100 },
  cubes,
  groups: [{ name: "web", replicas: 2 }],
  webhooks: [],
  preview,
});

describe("previewDesiredState", () => {
  test("names NAME-pr-N, preview resources, replicas capped, replaceable, unprotected, unpinned, no prune, no webhooks, no groups", () => {
    const state = previewDesiredState(fleet({ replicas: 1, resources: { vcpu: 1, ramGb: 1, diskGb: 10 } }), "pr-12");
    expect(state.cubes.map((c) => c.name)).toEqual(["api-pr-12", "web-1-pr-12"]);
    for (const c of state.cubes) {
      expect(c.resources).toEqual({ vcpu: 1, ramGb: 1, diskGb: 10 });
      expect(c.lifecycle.allowReplace).toBe(true);
      expect(c.terminationProtection).toBeUndefined();
      expect(c.id).toBeUndefined();
      expect(c.group).toBeUndefined();
      expect(c.ports).toHaveLength(1);
    }
    expect(state).toMatchObject({ prune: false, spaceId: "sp_fleet", budget: { monthly: 100 } });
    expect(state.webhooks).toBeUndefined();
    expect(state.groups).toBeUndefined();
    expect(state.preview).toBeUndefined();
  });

  test("the first domain takes the template's hostname (its settings and secret reference kept); without a template, no domains", () => {
    const state = previewDesiredState(fleet({ hostname: "{name}-{id}.preview.example.com" }), "pr-3");
    expect(state.cubes.map((c) => c.domains)).toEqual([
      [
        {
          hostname: "api-pr-3.preview.example.com",
          port: 8080,
          settings: { responseCompression: true },
          basicAuthPassword: { env: "PREVIEW_PW" },
        },
      ],
      [
        {
          hostname: "web-1-pr-3.preview.example.com",
          port: 8080,
          settings: { responseCompression: true },
          basicAuthPassword: { env: "PREVIEW_PW" },
        },
      ],
      [
        {
          hostname: "web-2-pr-3.preview.example.com",
          port: 8080,
          settings: { responseCompression: true },
          basicAuthPassword: { env: "PREVIEW_PW" },
        },
      ],
    ]);
    expect(previewDesiredState(fleet({}), "pr-3").cubes.every((c) => c.domains?.length === 0)).toBe(true);
  });

  test("preview.space: that space, and the fleet's budget (of its own space) left out", () => {
    const state = previewDesiredState(fleet({ space: "sp_previews" }), "pr-3");
    expect(state.spaceId).toBe("sp_previews");
    expect(state.budget).toBeUndefined();
  });

  test("refused: an id not pr-N, a name over 64 characters, a name the file declares itself, a hostname that is not one", () => {
    expect(() => previewDesiredState(fleet({}), "feature-x")).toThrow(/not pr-<number>/);
    expect(() => previewDesiredState(fleet({}), "pr-0")).toThrow(/not pr-<number>/);
    expect(() => previewDesiredState(fleet({}, [cube("a".repeat(60))]), "pr-12345")).toThrow(/at most 64 characters/);
    expect(() => previewDesiredState(fleet({}, [cube("api"), cube("api-pr-5")]), "pr-5")).toThrow(
      /"api-pr-5" in preview pr-5, a cube the file declares itself/,
    );
    expect(() => previewDesiredState(fleet({ hostname: "{name}-{id}" }), "pr-5")).toThrow(/not a lowercase hostname/);
  });
});

const live = (name: string, extra: Partial<LiveCube> = {}): LiveCube => ({
  id: `id-${name}`,
  name,
  terminationProtection: false,
  ...extra,
});

describe("findPreviews and sweepSelection", () => {
  test("a preview is a name ending in -pr-N with something before it; a name the file declares is not one", () => {
    expect(["web-pr-1", "web-1-pr-12", "pr-3", "web-pr-03", "web-pr-x", "web-pr-1-2", "Web-pr-7"].map(previewIdOf)).toEqual([
      "pr-1",
      "pr-12",
      undefined,
      undefined,
      undefined,
      undefined,
      "pr-7",
    ]);
    const previews = findPreviews(
      [live("web"), live("web-pr-2"), live("db-pr-2"), live("legacy-pr-5"), live("x-pr-10", { terminationProtection: true })],
      new Set(["legacy-pr-5"]),
    );
    expect(previews.map((p) => [p.id, p.cubes.map((c) => c.name)])).toEqual([
      ["pr-2", ["db-pr-2", "web-pr-2"]],
      ["pr-10", ["x-pr-10"]],
    ]);
  });

  test("sweep: --keep ids are kept; --older-than judges the newest created/updated time of the preview's cubes; no time: never old", () => {
    const now = Date.parse("2026-11-28T12:00:00Z");
    const previews = findPreviews(
      [
        live("a-pr-1", { createdAt: "2026-11-20T00:00:00Z", updatedAt: "2026-11-20T00:00:00Z" }),
        live("b-pr-1", { createdAt: "2026-11-28T11:00:00Z" }),
        live("a-pr-2", { createdAt: "2026-11-20T00:00:00Z" }),
        live("a-pr-3"),
        live("a-pr-4", { createdAt: "2026-11-27T00:00:00Z" }),
      ],
      new Set(),
    );
    const ids = (selection: Parameters<typeof sweepSelection>[1]) => sweepSelection(previews, selection).map((p) => p.id);
    expect(ids({ keep: new Set(["pr-2"]), now })).toEqual(["pr-1", "pr-3", "pr-4"]);
    expect(ids({ olderThanMs: 72 * 3_600_000, now })).toEqual(["pr-2"]);
    expect(ids({ keep: new Set(["pr-2"]), olderThanMs: 3_600_000, now })).toEqual(["pr-4"]);
  });

  test("withOthersClaimed: every live cube but the removable ones is claimed by identity, and prune removes what is left", () => {
    const state = withOthersClaimed({ prune: false, cubes: [] }, [live("web"), live("a-pr-1"), live("a-pr-2")], new Set(["id-a-pr-1"]));
    expect(state).toMatchObject({
      prune: true,
      allowEmpty: true,
      untargeted: [
        { name: "web", id: "id-web" },
        { name: "a-pr-2", id: "id-a-pr-2" },
      ],
    });
  });

  test("previewMonthly sums the preview's cubes' after-figures", () => {
    const cost = {
      currency: "EUR",
      hoursPerMonth: 730,
      stoppedBills: "all" as const,
      note: "",
      tiers: [],
      before: 10,
      after: 25.5,
      delta: 15.5,
      cubes: [
        { name: "web", before: 10, after: 10, delta: 0 },
        { name: "a-pr-1", before: null, after: 7.25, delta: 7.25 },
        { name: "b-pr-1", before: null, after: 8.25, delta: 8.25 },
      ],
    };
    expect(previewMonthly(cost, new Set(["a-pr-1", "b-pr-1"]))).toBe(15.5);
  });
});
