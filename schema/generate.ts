/**
 * Generates schema/cubeform.schema.json (editors' JSON Schema for cubeform.yaml) from the zod DesiredStateDocument: npx tsx
 * schema/generate.ts (test/reconciler/schema.generated.test.ts fails when the committed file is out of date).
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as z from "zod/mini";
import { DesiredStateDocument } from "./desired.js";

export const SCHEMA_ID = "https://cubeform.dev/schema/cubeform.schema.json";
export const SCHEMA_PATH = fileURLToPath(new URL("./cubeform.schema.json", import.meta.url));

export function generateJsonSchema(): Record<string, unknown> {
  // "input": what a person writes (fields with defaults are optional).
  const generated = z.toJSONSchema(DesiredStateDocument, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
  const { $schema: _drop, ...rest } = generated;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: SCHEMA_ID,
    title: "cubeform desired state (cubeform.yaml)",
    ...rest,
  };
}

export function schemaFileText(): string {
  return `${JSON.stringify(generateJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_PATH, schemaFileText());
  process.stdout.write(`wrote ${SCHEMA_PATH}\n`);
}
