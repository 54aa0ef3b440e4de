/**
 * What can be known before apply about the cubes a plan creates: whether their image and
 * region exist (the public catalog, GET /images and /regions: no key needed, read at most
 * once per connection, and only when the plan creates a cube). Limits that depend on the
 * space (vCPU/RAM/disk caps, port pools) only the API can judge: see limits.ts.
 */
import type { CubeApi } from "../client/api.js";
import type { Plan } from "../engine/types.js";
import type { Image, Region } from "../schema/api.js";
import { LoadError, type FileProblem } from "./errors.js";
import type { IssuePath, Position } from "../desired/load.js";
import { didYouMean } from "../desired/suggest.js";

export interface CatalogSource {
  /** The files as shown in messages. */
  file: string;
  locateCube(cubeName: string, field: IssuePath): Position & { file: string };
}

interface Catalog {
  images: Image[];
  regions: Region[];
}

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

/** Throws a LoadError (file:line:col for each) when a cube the plan creates names an image or region the API does not offer. */
export async function checkCatalog(client: CubeApi, plan: Plan, source: CatalogSource): Promise<void> {
  const creates = plan.steps.flatMap((step) => (step.op === "create-cube" ? [{ cubeName: step.cube.cubeName, image: step.body.image, region: step.body.region }] : []));
  if (creates.length === 0) return;
  const { images, regions } = await catalogOf(client);
  const imageIds = images.map((i) => i.id);
  const regionSlugs = regions.map((r) => r.slug);
  const problems: FileProblem[] = [];
  for (const cube of creates) {
    if (!imageIds.includes(cube.image)) {
      const at = source.locateCube(cube.cubeName, ["image"]);
      problems.push({ ...at, message: `cube "${cube.cubeName}": image "${cube.image}" is not offered by the API${didYouMean(cube.image, imageIds)}; images: ${imageIds.join(", ")} (GET /images)` });
    }
    if (cube.region !== undefined && !regionSlugs.includes(cube.region)) {
      const at = source.locateCube(cube.cubeName, ["region"]);
      problems.push({ ...at, message: `cube "${cube.cubeName}": region "${cube.region}" is not offered by the API${didYouMean(cube.region, regionSlugs)}; regions: ${regionSlugs.join(", ")} (GET /regions), or leave region out to let the API pick one` });
    }
  }
  if (problems.length > 0) throw new LoadError(source.file, problems);
}
