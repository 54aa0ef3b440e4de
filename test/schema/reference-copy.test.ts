import { existsSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";

const copy = new URL("../support/reference/krova-openapi.json", import.meta.url);
const shared = new URL("../../../shared/reference/krova-openapi.json", import.meta.url);

// The tests validate against a copy of the reference, so a bare clone can run them; where the
// shared reference sits beside the project, the copy must be the same document.
it.runIf(existsSync(shared))("the vendored reference OpenAPI document is identical to shared/reference", () => {
  expect(readFileSync(copy, "utf8")).toBe(readFileSync(shared, "utf8"));
});
