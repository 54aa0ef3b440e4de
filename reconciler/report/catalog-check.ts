/**
 * Whether the image and region of the cubes a plan creates or replaces exist (GET /images and /regions: public, read at most once per connection,
 * only when a plan sends one). Caps that depend on the space only the API can judge: see limits.ts.
 */
import type { CubeApi } from "../../client/api.js";
import { isReplace, type Plan } from "../../engine/types.js";
import type { Image, Region } from "../../schema/api.js";
import { LoadError, type FileProblem } from "../errors.js";
import { type IssuePath, type Position, didYouMean } from "../../desired/index.js";

export interface CatalogSource {
  /** The files as shown in messages. */
  file: string;
  locateCube(cubeName: string, field: IssuePath): FilePosition;
}

type FilePosition = Position & { file: string };

type Catalog = { images: Image[]; regions: Region[] };

const catalogs = new WeakMap<CubeApi, Promise<Catalog>>();

function catalogOf(client: CubeApi): Promise<Catalog> {
  let catalog = catalogs.get(client);
  if (catalog === undefined) {
    catalog = Promise.all([client.listImages(), client.listRegions()]).then(([images, regions]) => ({ images, regions }));
    catalogs.set(client, catalog);
    catalog.catch(() => catalogs.delete(client));
  }
  return catalog;
}

/**
 * Throws a LoadError (file:line:col for each) when a cube the plan creates or replaces names an image or region the API does not offer, blocked or
 * not: a typo is a typo, not a replacement. A value from `defaults:` is reported once, there.
 */
export async function checkCatalog(client: CubeApi, plan: Plan, source: CatalogSource): Promise<void> {
  const asked = plan.changes.flatMap((c) => {
    if (c.kind !== "cube" || !c.after || (c.action !== "create" && !isReplace(c.action))) return [];
    const sent = (field: "image" | "region") =>
      c.action === "create" || c.changes.some((f) => f.path === field) ? (c.after?.[field] as string | undefined) : undefined;
    return [{ cubeName: c.cubeName, image: sent("image"), region: sent("region") }];
  });
  if (!asked.some((cube) => cube.image !== undefined || cube.region !== undefined)) return;
  const { images, regions } = await catalogOf(client);
  const offered = { image: images.map((i) => i.id), region: regions.map((r) => r.slug) };
  // By position: the cubes that take one value from defaults share one problem.
  const bad = new Map<string, { at: FilePosition; field: "image" | "region"; value: string; cubes: string[] }>();
  for (const cube of asked) {
    for (const field of ["image", "region"] as const) {
      const value = cube[field];
      if (value === undefined || offered[field].includes(value)) continue;
      const at = source.locateCube(cube.cubeName, [field]);
      const where = `${at.file}:${at.line}:${at.col}`;
      bad.get(where)?.cubes.push(cube.cubeName) ?? bad.set(where, { at, field, value, cubes: [cube.cubeName] });
    }
  }
  const problems = [...bad.values()].map(({ at, field, value, cubes }): FileProblem => {
    const known =
      field === "image"
        ? `images: ${offered.image.join(", ")} (GET /images)`
        : `regions: ${offered.region.join(", ")} (GET /regions), or leave region out to let the API pick one`;
    const who = cubes.length === 1 ? `cube "${cubes[0]}"` : `cubes ${cubes.map((c) => `"${c}"`).join(", ")}`;
    return { ...at, message: `${who}: ${field} "${value}" is not offered by the API${didYouMean(value, offered[field])}; ${known}` };
  });
  if (problems.length > 0) throw new LoadError(source.file, problems);
}
