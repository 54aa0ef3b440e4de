import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A policy file (`kind: Policy`) with these rules (YAML list items), in a directory of its own: the caller removes `dir`. */
export function writePolicyFile(rules: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-policy-"));
  const path = join(dir, "policy.yaml");
  writeFileSync(path, `apiVersion: cubeform/v1\nkind: Policy\nrules:\n${rules}`);
  return { dir, path };
}
