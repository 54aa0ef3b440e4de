/** Where the renderers learn the order in which the file writes things (its keys are shown in that order). */
import type { LoadedFiles } from "./sources.js";

/**
 * The keys of a declared domain in the order the file writes them, for the text plan. Located
 * lazily (the first domain asked for parses the file for positions), so plans without domain
 * changes never pay for it.
 */
export function domainKeyOrder(loaded: Pick<LoadedFiles, "desired" | "locateCube">): (cubeName: string, hostname: string) => string[] | undefined {
  return (cubeName, hostname) => {
    const domains = loaded.desired.cubes.find((cube) => cube.name === cubeName)?.domains ?? [];
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
