/** The preview: block of a fleet file: validated like every other key (located errors, did-you-mean), in the JSON Schema. */
import { describe, expect, test } from "vitest";
import { generateJsonSchema } from "../../schema/generate.js";
import { FILE_HEADER, runCli, tempProject } from "./support/cli.js";

const file = (preview: string) => `${FILE_HEADER}  - name: web\npreview:\n${preview}`;

describe("preview: in the fleet file", () => {
  test("a valid block validates", async () => {
    const cwd = tempProject({
      "cubeform.yaml": file(
        '  hostname: "{name}-{id}.preview.example.com"\n  maxMonthly: 20\n  replicas: 1\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  space: sp_previews\n',
      ),
    });
    const run = await runCli(["validate"], { cwd });
    expect(run.exitCode, run.stderr).toBe(0);
  });

  test("a mistyped key: located, with did-you-mean", async () => {
    const cwd = tempProject({ "cubeform.yaml": file("  maxMontly: 20\n") });
    const run = await runCli(["validate"], { cwd });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/cubeform\.yaml:\d+:\d+/);
    expect(run.stderr).toContain('did you mean "maxMonthly"?');
  });

  test("a hostname template without {id}, or with another placeholder, is refused where it is written", async () => {
    for (const template of ['"{name}.preview.example.com"', '"{name}-{id}-{sha}.preview.example.com"']) {
      const cwd = tempProject({ "cubeform.yaml": file(`  hostname: ${template}\n`) });
      const run = await runCli(["validate"], { cwd });
      expect(run.exitCode, template).toBe(1);
      expect(run.stderr).toMatch(/cubeform\.yaml:9:\d+: preview\.hostname/);
      expect(run.stderr).toMatch(/\{name\} and \{id\}/);
    }
  });

  test("the JSON Schema for editors knows the block", () => {
    const schema = generateJsonSchema() as {
      properties: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }>;
    };
    expect(Object.keys(schema.properties.preview?.properties ?? {}).sort()).toEqual([
      "hostname",
      "maxMonthly",
      "replicas",
      "resources",
      "space",
    ]);
    expect(schema.properties.preview?.additionalProperties).toBe(false);
  });
});
