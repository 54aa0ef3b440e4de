import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { SCHEMA_PATH, schemaFileText } from "../../schema/generate.js";

test("the committed JSON Schema is what schema/generate.ts makes (run `npx tsx schema/generate.ts`)", () => {
  expect(readFileSync(SCHEMA_PATH, "utf8")).toBe(schemaFileText());
});

test("examples/fleet.yaml validates against the JSON Schema, and a typo does not", () => {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as Record<string, unknown>;
  const validate = new Ajv2020({ strict: false }).compile(schema);
  const fleet = parse(readFileSync(fileURLToPath(new URL("../../examples/fleet.yaml", import.meta.url)), "utf8")) as {
    cubes: Record<string, unknown>[];
  };
  expect(validate(fleet), JSON.stringify(validate.errors)).toBe(true);
  fleet.cubes[0] = { ...fleet.cubes[0], powr: "running" };
  expect(validate(fleet)).toBe(false);
});
