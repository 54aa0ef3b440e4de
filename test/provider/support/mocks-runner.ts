/**
 * Runs a Pulumi program under `pulumi.runtime.setMocks` in its own node process (so vitest does
 * not transform the built provider) and prints what it registered as one JSON line:
 *   node --import tsx mocks-runner.ts <program.ts>
 * Config comes from PULUMI_CONFIG, as under the Pulumi CLI.
 */
import pulumi from "@pulumi/pulumi";
import { pathToFileURL } from "node:url";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

const registered: Registered[] = [];

pulumi.runtime.setMocks(
  {
    newResource(args) {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
      const id = `${args.name}-id`;
      return { id, state: { ...args.inputs, cubeId: args.inputs.cubeId ?? id } };
    },
    call(args) {
      return args.inputs;
    },
  },
  process.env.PULUMI_NODEJS_PROJECT ?? "project",
  "dev",
  false,
);

const program = (await import(pathToFileURL(process.argv[2]!).href)) as Record<string, unknown>;
const exported: Record<string, unknown> = {};
for (const [name, value] of Object.entries(program)) {
  exported[name] = pulumi.Output.isInstance(value) ? await new Promise((resolve) => value.apply(resolve)) : value;
}
await pulumi.runtime.disconnect();
process.stdout.write(`${JSON.stringify({ registered, exported })}\n`);
