import { expect } from "vitest";
import { FAST_APPLY, test } from "./support/fixtures.js";

test("apply refuses without --auto-approve when stdin is not a terminal", async ({ fx }) => {
  const r = await fx.cli(["apply", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toContain("Plan: 7 to add");
  expect(r.stderr).toMatch(/^Error: refusing to apply without confirmation: stdin is not a terminal; pass --auto-approve/);
  expect(fx.mutations()).toBe(0);
});

test("on a terminal, apply asks, and anything but yes cancels", async ({ fx }) => {
  const r = await fx.cli(["apply", ...FAST_APPLY], { ttyInput: "no\n" });
  expect(r.stdout).toContain("Apply these 7 changes? (yes/no) ");
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toBe("Error: apply cancelled: nothing was changed\n");
  expect(fx.mutations()).toBe(0);
});

test("on a terminal, yes applies", async ({ fx }) => {
  const r = await fx.cli(["apply", ...FAST_APPLY], { ttyInput: "yes\n" });
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain("The space matches the file.");
});
