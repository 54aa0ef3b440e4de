/**
 * Issue 36's bound: a plainly shaped policy file is read without the yaml library (js-yaml, loaded for the fleet file already). The rules and the
 * places they are reported at are those of the positioned load, which a `!` anywhere in the text selects.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadPolicyFiles } from "../../desired/policy.js";

const HEAD = "apiVersion: cubeform/v1\nkind: Policy\n";
const SHAPES: Record<string, string> = {
  "flow items": `${HEAD}rules:\n  - { name: a, enforcement: mandatory, deny: { portsOpenToInternet: true } }\n  - { name: b, enforcement: advisory, max: { vcpu: 4 } }\n`,
  "block items at column 1, nested lists": `${HEAD}rules:\n- name: a\n  enforcement: mandatory\n  deny:\n    portsOpenToInternet: true\n- name: b   # c\n  enforcement: advisory\n  match:\n    names:\n      - prod-*\n      - x\n  max: { vcpu: 4 }\n`,
  "comments, blank lines, wide indent": `${HEAD}# top\nrules:   # the rules\n\n    -   name: a\n        enforcement: mandatory\n        deny: { udpPorts: true }\n    # between\n    - name: b\n      enforcement: advisory\n      max: { ramGb: 2.0 }\n`,
  "rules before the header":
    "rules:\n  - name: a\n    enforcement: mandatory\n    deny: { udpPorts: true }\napiVersion: cubeform/v1\nkind: Policy\n",
  "no rules": `${HEAD}rules: []\n`,
  "an item's value on the next line": `${HEAD}rules:\n  -\n    name: a\n    enforcement: mandatory\n    deny: { udpPorts: true }\n`,
  "a rules key inside a rule": `${HEAD}rules:\n  - name: a\n    enforcement: advisory\n    match:\n      names: [rules]\n    deny: { udpPorts: true }\n`,
};

test.each(Object.entries(SHAPES))("%s: the same rules at the same places as the positioned load", (_shape, text) => {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-policy-light-"));
  writeFileSync(join(dir, "light.yaml"), text);
  writeFileSync(join(dir, "positioned.yaml"), `${text}# !\n`);
  const light = loadPolicyFiles({ files: ["light.yaml"], cwd: dir });
  const positioned = loadPolicyFiles({ files: ["positioned.yaml"], cwd: dir });
  expect(light.map((r) => ({ ...r, source: r.source.replace("light.yaml", "FILE") }))).toEqual(
    positioned.map((r) => ({ ...r, source: r.source.replace("positioned.yaml", "FILE") })),
  );
});
