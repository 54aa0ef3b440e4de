/**
 * `cubeform apply --auto-approve | head`: the reader goes away while the apply runs. The apply
 * must finish what it started (its output is lost, not its work), never stop half-applied.
 */
import { expect, test } from "vitest";
import { cubeNameCounts, describeRun, holdingProxy, plainFleet, project } from "./support.js";

const TWO_CUBES = plainFleet("first", "second");

test("apply whose standard output is closed mid-run still applies every step and exits 0", async () => {
  const p = await project({ "cubeform.yaml": TWO_CUBES });
  const proxy = await holdingProxy(p.emu, (method, path, body) => method === "POST" && path.endsWith("/cubes") && body.includes('"first"'));
  const apply = p.start(["apply", "--auto-approve", "--rate-limit", "1000/60", "--poll-interval", "20"], { CUBE_API_URL: proxy.url });
  await proxy.held;
  apply.process.stdout!.destroy(); // as `| head` does once it has its lines
  expect(await proxy.release()).toBe(201);
  const run = await apply.exited;
  expect(run.code, describeRun(run)).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ first: 1, second: 1 });
});
