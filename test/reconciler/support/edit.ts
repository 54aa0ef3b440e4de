import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Rewrites the project's cubeform.yaml with a text replacement (which must match). */
export function editFleet(cwd: string, from: string | RegExp, to: string): void {
  const path = join(cwd, "cubeform.yaml");
  const text = readFileSync(path, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`editFleet: ${String(from)} not found`);
  writeFileSync(path, next);
}
