import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { addBasicAuthFromEnv } from "./support/edit.js";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

const PASSWORD = "pa55-correct-horse-battery";

test("neither the API key nor a basic-auth password appears in any output or in plan.json", async ({ fx }) => {
  addBasicAuthFromEnv(fx.cwd);
  const env = { WWW_PASSWORD: PASSWORD };
  const outputs: string[] = [];
  const run = async (argv: string[]) => {
    const r = await fx.cli(argv, { env });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  expect((await run(["plan", "--out", "plan.json", ...FAST])).exitCode).toBe(2);
  await run(["plan", "--format", "json", ...FAST]);
  await run(["plan", "--format", "markdown", ...FAST]);
  expect((await run(["apply", "plan.json", ...FAST_APPLY])).exitCode).toBe(0);
  await run(["drift", "--format", "github", ...FAST]);
  await run(["plan", ...FAST.slice(0, 1), "bad"]);
  outputs.push(readFileSync(join(fx.cwd, "plan.json"), "utf8"));

  // The password did reach the API: the domain has basic auth on.
  const web = (await fx.api.listCubes()).find((c) => c.name === "web")!;
  const www = (await fx.api.listDomains(web.id)).find((d) => d.hostname === "www.demo.example.com");
  expect(www?.basicAuthEnabled).toBe(true);

  const all = outputs.join("\n");
  expect(all).toContain("WWW_PASSWORD");
  expect(all).not.toContain(PASSWORD);
  expect(all).not.toContain(fx.env.CUBE_API_KEY);
});
