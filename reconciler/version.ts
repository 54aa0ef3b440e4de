/** cubeform's version from its package.json; the CLI bundle (build/cli-bundle.mjs) writes it in, so start-up does not resolve the package. */
import { createRequire } from "node:module";

export const VERSION: string = (createRequire(import.meta.url)("cubeform/package.json") as { version: string }).version;
