/** Where the renderers learn the order in which the file writes things (its keys are shown in that order). */
import type { DesiredCubeSpec } from "../../engine/types.js";
import type { LoadedFiles } from "../../desired/index.js";

/**
 * The keys of a declared domain in the order the file writes them, for the text plan. Located lazily (the first domain asked for parses the file for
 * positions), so plans without domain changes never pay for it.
 */
export function domainKeyOrder(
  loaded: Pick<LoadedFiles, "desired" | "locateCube">,
): (cubeName: string, hostname: string) => string[] | undefined {
  let byName: Map<string, DesiredCubeSpec> | undefined;
  return (cubeName, hostname) => {
    // Built on first use: a plan of many cubes asks once per domain shown.
    byName ??= new Map(loaded.desired.cubes.map((cube) => [cube.name, cube]));
    const domains = byName.get(cubeName)?.domains ?? [];
    const index = domains.findIndex((domain) => domain.hostname === hostname);
    const domain = domains[index];
    if (domain === undefined) return undefined;
    const keys = ["hostname", "port", ...Object.keys(domain.settings), ...(domain.basicAuthPassword ? ["basicAuthPassword"] : [])];
    const located = keys.map((key) => ({ key, at: loaded.locateCube(cubeName, ["domains", index, key]) }));
    return located
      .filter(({ at }) => at.line > 0)
      .sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col)
      .map(({ key }) => key);
  };
}
