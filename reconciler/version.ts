/**
 * cubeform's version, from its package.json. The CLI bundle (build/cli-bundle.mjs) replaces
 * this module with the version written in, so that start-up does not resolve the package.
 */
import { createRequire } from "node:module";

export const VERSION: string = (createRequire(import.meta.url)("cubeform/package.json") as { version: string }).version;
