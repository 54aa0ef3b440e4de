/** What the renderers need beside the plan: the file and its positions, colour, width, and the order the file writes a domain's keys. */
import { outputWidth, useColor, type CliIo } from "../io.js";
import type { LoadedFile, LoadedFiles } from "../../desired/index.js";
import { domainKeyOrder } from "./file-order.js";
import type { RenderContext } from "./index.js";

export function renderContext(
  loaded: Pick<LoadedFile, "file" | "cubePositions"> & Partial<Pick<LoadedFiles, "desired" | "locateCube">>,
  io: CliIo,
): RenderContext {
  const ctx: RenderContext = { file: loaded.file, cubePositions: loaded.cubePositions, color: useColor(io), width: outputWidth(io.stdout) };
  if (loaded.desired !== undefined && loaded.locateCube !== undefined)
    ctx.domainKeyOrder = domainKeyOrder({ desired: loaded.desired, locateCube: loaded.locateCube });
  return ctx;
}
