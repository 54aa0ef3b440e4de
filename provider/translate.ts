/** The engine's per-resource plan → Pulumi's DiffResult (style.md, "Provider adapter" 1–2). */
import type { DiffResult } from "@pulumi/pulumi/dynamic/index.js";
import { isReplace, replacePaths, type ResourceChange } from "../engine/index.js";

/**
 * `extraReplaces`: identity changes the engine has no field for (a renamed cube is another
 * cube). The engine's paths are the desired-state file's names, which the inputs share.
 */
export function toDiffResult(change: ResourceChange, extraReplaces: string[] = []): DiffResult {
  const fromEngine = replacePaths(change).map((path) => path.split(".")[0] ?? path);
  const replaces = [...new Set([...fromEngine, ...extraReplaces])];
  if (change.action === "delete-then-create") return { changes: true, replaces, deleteBeforeReplace: true };
  if (change.action === "create-then-delete" || replaces.length > 0) return { changes: true, replaces };
  if (change.action === "noop") return { changes: false };
  return { changes: true };
}

/** update() only changes in place: a replacement it is asked for means the resource changed outside Pulumi. */
export function requireInPlace(what: string, change: ResourceChange): void {
  if (isReplace(change.action))
    throw new Error(`${what} changed outside Pulumi (${replacePaths(change).join(", ")}); run pulumi refresh, then pulumi up.`);
}

export const goneError = (what: string): Error => new Error(`${what} no longer exists; run pulumi refresh to forget it.`);
