import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/leak-canary.ts", import.meta.url));
const CANARY = "kro_SECRET_canary_123";

describe("the API key never appears in the output of a failing run", () => {
  test("errors, logs and the client itself, printed every way, do not contain the key", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", script], {
      cwd: root,
      env: { ...process.env, CANARY_KEY: CANARY },
      encoding: "utf8",
      timeout: 25_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(run.stdout).toContain("DONE failures=11");
    // Every failure kind really happened (the run cannot pass by failing early).
    for (const code of [
      "unauthorized",
      "server_error",
      "network_error",
      "invalid_response",
      "termination_protected",
      "redirect_refused",
      "rate_limited",
      "bad_request",
      "invalid_argument",
      "insecure_url",
    ]) {
      expect(output).toContain(`"code":"${code}"`);
    }
    expect(output).toContain("[REDACTED]");
    expect(output).not.toContain(CANARY);
    expect(output).not.toContain("SECRET_canary");
  });
});
