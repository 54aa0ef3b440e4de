/** A stack whose plugin reads a policy file (CUBEFORM_POLICY) and logs to an engine the test listens to; set up and torn down per file. */
import { rmSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { writePolicyFile } from "../../support/policy-file.js";
import { startEngineLog } from "../harness.js";
import { startStack, type Stack } from "./stack.js";

export interface PolicyStack {
  /** The policy file's path (violations name it as FILE:LINE:COL). */
  policy: string;
  stack(): Stack;
  engine(): Awaited<ReturnType<typeof startEngineLog>>;
}

export function usePolicyStack(rules: string): PolicyStack {
  const { dir, path } = writePolicyFile(rules);
  let stack: Stack | undefined;
  let engine: Awaited<ReturnType<typeof startEngineLog>> | undefined;
  beforeAll(async () => {
    engine = await startEngineLog();
    stack = await startStack({ env: { CUBEFORM_POLICY: path }, engineAddress: engine.address });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    policy: path,
    stack: () => stack as Stack,
    engine: () => engine as NonNullable<typeof engine>,
  };
}
