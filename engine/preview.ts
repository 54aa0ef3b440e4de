/**
 * Previews: a small copy of a fleet per pull request, found again from the API alone. Pure: a fleet's DesiredState and a preview
 * id → the preview's DesiredState; live cubes → which previews they are. The API keeps no label or tag on a cube (schema/api.ts,
 * the spec, the reference: name, image, resources, region, protection, timestamps), so a preview is known by its name: every
 * cube of preview `pr-N` is named `<cube>-pr-N` (a group's members too: `web-1-pr-N`), the suffix engine/policy.ts's
 * `previews:` match knows.
 */
import { CubeName, Hostname } from "../schema/common.js";
import type { PreviewBlock } from "../schema/preview.js";
import { EngineError } from "./errors.js";
import type { DeclaredCube, DesiredCubeSpec, DesiredState, KnownCost } from "./types.js";

/** A pull or merge request's number: `pr-123`. The id is the last part of every name of the preview. */
const PREVIEW_ID = /^pr-[1-9]\d{0,8}$/;
const NAME_SUFFIX = /^(.+)-(pr-[1-9]\d{0,8})$/;

export class PreviewError extends EngineError {}

/** Why `id` cannot name a preview, or undefined. */
export function previewIdProblem(id: string): string | undefined {
  return PREVIEW_ID.test(id) ? undefined : `preview id "${id}" is not pr-<number> (the pull or merge request's number, e.g. pr-123)`;
}

export const previewName = (name: string, id: string): string => `${name}-${id}`;

/** The preview id a cube's name ends in ("web-1-pr-12" → "pr-12"), or undefined. */
export function previewIdOf(name: string): string | undefined {
  return NAME_SUFFIX.exec(name)?.[2];
}

/** A live cube as previews see it. */
export interface LiveCube {
  id: string;
  name: string;
  terminationProtection: boolean;
  createdAt?: string | undefined;
  updatedAt?: string | undefined;
}

export interface LivePreview<C extends LiveCube = LiveCube> {
  id: string;
  cubes: C[];
  /** The newest createdAt/updatedAt of its cubes: when the API last saw it change (undefined: the API gave no time). */
  lastChangedAt?: string;
}

/**
 * The previews among live cubes: the cubes whose name ends in -pr-N, except those the fleet declares under that name (a real
 * cube named `api-pr-5` in the file is never a preview). Protected ones are listed too (their callers never delete them).
 */
export function findPreviews<C extends LiveCube>(cubes: readonly C[], declared: ReadonlySet<string>): LivePreview<C>[] {
  const byId = new Map<string, C[]>();
  for (const cube of cubes) {
    const id = previewIdOf(cube.name);
    if (id === undefined || declared.has(cube.name)) continue;
    byId.set(id, [...(byId.get(id) ?? []), cube]);
  }
  return [...byId.entries()]
    .map(([id, members]) => {
      const times = members
        .flatMap((c) => [c.createdAt, c.updatedAt])
        .filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)));
      const last = times.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
      return {
        id,
        cubes: [...members].sort((a, b) => a.name.localeCompare(b.name)),
        ...(last === undefined ? {} : { lastChangedAt: last }),
      };
    })
    .sort((a, b) => Number(a.id.slice(3)) - Number(b.id.slice(3)));
}

export interface SweepSelection {
  /** Ids kept whatever their age (open pull requests). */
  keep?: ReadonlySet<string>;
  /** Only previews unchanged for longer than this (ms before `now`). */
  olderThanMs?: number;
  now: number;
}

/** The previews a sweep removes: not kept, and (with an age) unchanged for longer than it; one without a time is never old. */
export function sweepSelection<C extends LiveCube>(previews: readonly LivePreview<C>[], selection: SweepSelection): LivePreview<C>[] {
  return previews.filter((preview) => {
    if (selection.keep?.has(preview.id) === true) return false;
    if (selection.olderThanMs === undefined) return true;
    if (preview.lastChangedAt === undefined) return false;
    return selection.now - Date.parse(preview.lastChangedAt) > selection.olderThanMs;
  });
}

/**
 * The desired state of preview `id` of a fleet: each cube (each member of a group, up to preview.replicas) as `<name>-<id>`,
 * with preview.resources, replaceable (a preview holds no data worth keeping), protection left to the API's default, its first
 * domain as preview.hostname (the others, and all of them without a template, are dropped: a preview must not claim the
 * fleet's hostnames), its ports as declared. In preview.space when set; the fleet's budget counts only in its own space.
 */
export function previewDesiredState(fleet: DesiredState, id: string): DesiredState {
  const problem = previewIdProblem(id);
  if (problem !== undefined) throw new PreviewError("invalid_preview_id", problem);
  const block: PreviewBlock = fleet.preview ?? {};
  const declared = new Set(fleet.cubes.map((cube) => cube.name));
  const cubes = fleet.cubes
    .filter((cube) => block.replicas === undefined || cube.group === undefined || cube.group.index <= block.replicas)
    .map((cube) => previewCube(cube, id, block, declared));
  const space = block.space ?? fleet.spaceId;
  const sameSpace = block.space === undefined || block.space === fleet.spaceId;
  return {
    prune: false,
    cubes,
    ...(space === undefined ? {} : { spaceId: space }),
    ...(fleet.ignoreWarnings ? { ignoreWarnings: fleet.ignoreWarnings } : {}),
    ...(fleet.policies ? { policies: fleet.policies } : {}),
    ...(sameSpace && fleet.budget ? { budget: fleet.budget } : {}),
  };
}

function previewCube(cube: DesiredCubeSpec, id: string, block: PreviewBlock, declared: ReadonlySet<string>): DesiredCubeSpec {
  const name = previewName(cube.name, id);
  if (!CubeName.safeParse(name).success)
    throw new PreviewError(
      "preview_name_invalid",
      `cube "${cube.name}" would be "${name}" in preview ${id}: a cube name has at most 64 characters; shorten the name in the file`,
    );
  if (declared.has(name))
    throw new PreviewError(
      "preview_name_taken",
      `cube "${cube.name}" would be "${name}" in preview ${id}, a cube the file declares itself; rename one of them`,
    );
  const { id: _pinned, group: _group, terminationProtection: _protection, domains, ...rest } = cube;
  const first = domains?.[0];
  const previewDomains =
    first === undefined || block.hostname === undefined ? [] : [{ ...first, hostname: previewHostname(block.hostname, cube.name, id) }];
  return {
    ...rest,
    name,
    ...(block.resources ? { resources: { ...block.resources } } : {}),
    domains: previewDomains,
    lifecycle: { ...cube.lifecycle, allowReplace: true },
  };
}

function previewHostname(template: string, name: string, id: string): string {
  const hostname = template.replaceAll("{name}", name.toLowerCase()).replaceAll("{id}", id);
  if (!Hostname.safeParse(hostname).success)
    throw new PreviewError(
      "preview_hostname_invalid",
      `preview.hostname makes "${hostname}" for cube "${name}": not a lowercase hostname (at most 63 characters a label)`,
    );
  return hostname;
}

/**
 * The plan's desired state for `up`: the preview's cubes, every other live cube claimed by identity (so it is never unmanaged,
 * never pruned), and this preview's own cubes that the file no longer declares left unclaimed, so prune removes them.
 */
export function withOthersClaimed(preview: DesiredState, live: readonly LiveCube[], removable: ReadonlySet<string>): DesiredState {
  const untargeted: DeclaredCube[] = live.filter((cube) => !removable.has(cube.id)).map((cube) => ({ name: cube.name, id: cube.id }));
  return { ...preview, prune: true, allowEmpty: true, untargeted };
}

/** A preview's monthly cost in the plan's cost: its cubes' after-figures. */
export function previewMonthly(cost: KnownCost, names: ReadonlySet<string>): number {
  let sum = 0;
  for (const cube of cost.cubes) if (names.has(cube.name)) sum += cube.after ?? 0;
  return Math.round(sum * 100) / 100;
}
