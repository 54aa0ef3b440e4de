import { existsSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";

const copy = new URL("../../schema/krova-openapi.json", import.meta.url);
const shared = new URL("../../../shared/reference/krova-openapi.json", import.meta.url);

// The emulator serves the components of a copy of the reference that ships in the package (and
// the tests validate against it), so a bare clone works; where the shared reference sits beside
// the project, the copy must be the same document.
it.runIf(existsSync(shared))("the vendored reference OpenAPI document is identical to shared/reference", () => {
  expect(readFileSync(copy, "utf8")).toBe(readFileSync(shared, "utf8"));
});
