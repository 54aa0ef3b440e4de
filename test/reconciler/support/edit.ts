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

/** Gives the first domain with responseCompression in the fleet a basic-auth user `admin` whose password is `${env:WWW_PASSWORD}`. */
export function addBasicAuthFromEnv(cwd: string): void {
  editFleet(
    cwd,
    "        responseCompression: true\n",
    "        responseCompression: true\n        basicAuthUser: admin\n        basicAuthPassword: ${env:WWW_PASSWORD}\n",
  );
}
