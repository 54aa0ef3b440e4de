import { Writable } from "node:stream";
import { expect, test } from "vitest";
import type { Plan, ResourceChange } from "../../engine/types.js";
import type { CliIo } from "../../reconciler/io.js";
import { redactingIo } from "../../reconciler/redact.js";
import { renderPlan, writePlan } from "../../reconciler/render/index.js";

/** A reader slower than the writer (like `cubeform plan --format json | jq` on a large plan): one chunk per turn of the event loop. */
class SlowReader extends Writable {
  text = "";
  /** The most text ever waiting in this stream's buffer. */
  maxWaiting = 0;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.maxWaiting = Math.max(this.maxWaiting, this.writableLength);
    this.text += chunk.toString();
    setImmediate(callback);
  }
}

const view = { id: "x", name: "web", image: "ubuntu-24.04", note: "y".repeat(200) };
function bigPlan(changes: number): Plan {
  const list: ResourceChange[] = Array.from({ length: changes }, (_, i) => ({
    address: `cube/web-${i}`,
    kind: "cube",
    cubeName: `web-${i}`,
    id: `c${i}`,
    action: "update",
    before: view,
    after: view,
    changes: [{ path: "power", before: "running", after: "stopped", forcesReplace: false }],
  }));
  return {
    formatVersion: 4,
    createdAt: "2026-01-01T00:00:00.000Z",
    spaceId: "s1",
    changes: list,
    steps: [],
    summary: { add: 0, change: changes, destroy: 0, replace: 0, blocked: 0, unmanaged: 0, mutations: 0, estimatedSeconds: 0 },
    priorStateDigest: "abc",
    options: { prune: false, allowReplace: false, targets: [], rateLimit: { limit: 10, windowMs: 60_000 } },
  };
}

const ctx = { file: "f.yaml", cubePositions: {}, color: false };

test.each([
  ["with the API key redacted from output", { CUBE_API_KEY: "kro_0123456789abcdef" }],
  ["without secrets to redact", {}],
])("a large JSON plan goes out as fast as the reader takes it, never piled up whole (%s)", async (_what, env) => {
  const plan = bigPlan(4_000);
  const expected = renderPlan(plan, "json", ctx);
  expect(expected.length).toBeGreaterThan(1_500_000);
  const reader = new SlowReader();
  const io: CliIo = redactingIo({ stdout: reader, stderr: new SlowReader(), env });
  await writePlan(io.stdout, plan, "json", ctx);
  await new Promise<void>((resolve) => io.stdout.end(() => resolve()));
  if (io.stdout !== reader) await new Promise<void>((resolve) => reader.end(() => resolve()));
  expect(reader.text).toBe(expected);
  // At most a couple of 64 KB batches wait at any time, not the whole plan.
  expect(reader.maxWaiting).toBeLessThan(200_000);
});
