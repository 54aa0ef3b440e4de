/**
 * diffAsRead plans each declared cube as its reads come in (observe's onListed / onRead); its
 * finish() must answer exactly what diff() answers for the observed state it is given, also
 * when that state is not what the early reads suggested: a cube gone before its reads, a cube
 * left out as being deleted, a name that was ambiguous while listing, an address that gains or
 * loses its id.
 */
import { describe, expect, test } from "vitest";
import { diff, diffAsRead, type DesiredState, type DiffContext, type ObservedCube, type PlanOptions } from "../../engine/index.js";
import { cube, desired, domain, live, mapping, observed, spec } from "./fixtures.js";

/** Feeds `listedAfter` reads, then the list, then the rest; finishes with `final` (default: every read cube). */
function planAsRead(
  file: DesiredState,
  reads: ObservedCube[],
  options: {
    listedAfter?: number;
    extraListed?: ObservedCube[];
    final?: ObservedCube[];
    plan?: Partial<PlanOptions>;
    context?: DiffContext;
  } = {},
) {
  const early = diffAsRead(file, options.plan, options.context);
  const listedAfter = options.listedAfter ?? 0;
  reads.slice(0, listedAfter).forEach(early.read);
  early.listed([...reads, ...(options.extraListed ?? [])].map((c) => c.cube));
  reads.slice(listedAfter).forEach(early.read);
  const state = observed(options.final ?? reads);
  return { early: early.finish(state), whole: diff(file, state, options.plan, options.context) };
}

const web = cube("web");
const db = cube("db", { state: "stopped" });
const old = cube("old");
const reads = [
  live(web, { domains: [domain(web.id, "app.example.com", { port: 9090 })], tcpMappings: [mapping(web.id, 5432, { udp: false })] }),
  live(db),
  live(old),
];
const file = desired([
  spec("web", {
    domains: [{ hostname: "app.example.com", port: 8080, settings: {}, basicAuthPassword: { env: "WEB_PASSWORD" } }],
    ports: [{ cubePort: 5432, udp: true, allow: [] }],
  }),
  spec("db", { power: "running" }),
  spec("new"),
]);

describe("engine: a plan made while the cubes are read (diffAsRead) equals the plan of the whole state", () => {
  test.each([
    ["reads after the list", 0],
    ["some reads before the list", 2],
    ["every read before the list", 3],
  ])("%s: same changes, steps, summary and digest, as diff", (_, listedAfter) => {
    const { early, whole } = planAsRead(file, reads, { listedAfter });
    expect(early).toEqual(whole);
    expect(early.summary.mutations).toBeGreaterThan(0);
  });

  test("each cube is planned as its reads come in, not after the last one", () => {
    const asked: string[] = [];
    const early = diffAsRead(file, {}, { passwordChanged: (cubeName) => (asked.push(cubeName), false) });
    early.listed(reads.map((c) => c.cube));
    early.read(reads[0]!);
    expect(asked).toEqual(["web"]);
    reads.slice(1).forEach(early.read);
    early.finish(observed(reads));
    expect(asked).toEqual(["web"]);
  });

  test("a cube listed but gone before its reads: its declared cube is created, as diff says", () => {
    const gone = live(cube("new"));
    const { early, whole } = planAsRead(file, reads, { extraListed: [gone] });
    expect(early).toEqual(whole);
    expect(early.changes.find((c) => c.cubeName === "new")?.action).toBe("create");
  });

  test("a cube read, then left out of the observed state (its deletion is under way): planned again", () => {
    const { early, whole } = planAsRead(file, reads, { final: reads.filter((c) => c.cube.name !== "web") });
    expect(early).toEqual(whole);
    expect(early.changes.find((c) => c.cubeName === "web" && c.kind === "cube")?.action).toBe("create");
  });

  test("a cube read again with other domains before finish: the plan and digest follow the state finish is given", () => {
    const reread = { ...reads[0]!, domains: [] };
    const { early, whole } = planAsRead(file, reads, { final: [reread, ...reads.slice(1)] });
    expect(early).toEqual(whole);
    expect(early.priorStateDigest).not.toBe(planAsRead(file, reads).early.priorStateDigest);
  });

  test("a name ambiguous while listing, one of the two gone before its reads: the other is matched", () => {
    const twin = live(cube("db", { id: "cube-db-twin" }));
    const { early, whole } = planAsRead(file, reads, { extraListed: [twin] });
    expect(early).toEqual(whole);
    expect(early.changes.find((c) => c.cubeName === "db" && c.kind === "cube")?.blocked).toBeUndefined();
  });

  test("a name ambiguous while listing and after the reads: blocked, as diff says (the listing's matching reused)", () => {
    const twin = live(cube("db", { id: "cube-db-twin" }));
    const { early, whole } = planAsRead(file, [...reads, twin]);
    expect(early).toEqual(whole);
    expect(early.changes.find((c) => c.cubeName === "db" && c.kind === "cube")?.blocked?.code).toBe("ambiguous_name");
  });

  test("an address that carried an id while listing (an unmanaged cube of the same name) loses it when that cube is gone", () => {
    const twin = live(cube("old", { id: "cube-old-twin" }));
    const withOld = desired([...file.cubes, spec("old", { id: old.id })]);
    const both = planAsRead(withOld, [...reads, twin]);
    expect(both.early).toEqual(both.whole);
    expect(both.early.changes.map((c) => c.address)).toContain(`cube/old[${old.id}]`);
    const one = planAsRead(withOld, reads, { extraListed: [twin] });
    expect(one.early).toEqual(one.whole);
    expect(one.early.changes.map((c) => c.address)).toContain("cube/old");
  });

  test("with targets only the targeted cubes are planned; prune and webhooks as diff", () => {
    for (const plan of [{ targets: ["db"] }, { prune: true }]) {
      const { early, whole } = planAsRead({ ...file, webhooks: [] }, reads, { plan });
      expect(early).toEqual(whole);
    }
  });
});
