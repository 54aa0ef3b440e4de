import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { FileJournal, JOURNAL_MAX_AGE_MS } from "../../reconciler/session/journal.js";
import { tempProject } from "./support/cli.js";

const entry = { spaceId: "s1", address: "cube/web", bodyDigest: "abc" };

test("a create's key survives the process (a new journal on the same file) until settled", async () => {
  const dir = tempProject();
  const path = join(dir, ".cubeform", "journal.json");
  const key = await new FileJournal(path).keyFor(entry);
  expect(await new FileJournal(path).keyFor(entry)).toBe(key);
  expect(await new FileJournal(path).keyFor({ ...entry, bodyDigest: "other" })).not.toBe(key);
  await new FileJournal(path).settle(entry);
  expect(await new FileJournal(path).keyFor(entry)).not.toBe(key);
  // Atomic writes leave no temporary files behind.
  expect(readdirSync(join(dir, ".cubeform"))).toEqual(["journal.json"]);
});

test("entries older than 23 hours are ignored", async () => {
  const dir = tempProject();
  mkdirSync(join(dir, ".cubeform"));
  const path = join(dir, ".cubeform", "journal.json");
  let now = Date.parse("2026-01-01T00:00:00Z");
  const key = await new FileJournal(path, () => now).keyFor(entry);
  now += JOURNAL_MAX_AGE_MS - 1;
  expect(await new FileJournal(path, () => now).keyFor(entry)).toBe(key);
  now += 2;
  expect(await new FileJournal(path, () => now).keyFor(entry)).not.toBe(key);
});

test("concurrent creates each get their own key, all written", async () => {
  const dir = tempProject();
  const path = join(dir, "journal.json");
  const journal = new FileJournal(path);
  const keys = await Promise.all(["a", "b", "c"].map((address) => journal.keyFor({ ...entry, address })));
  expect(new Set(keys).size).toBe(3);
  expect(Object.keys(JSON.parse(readFileSync(path, "utf8")) as object)).toHaveLength(3);
  writeFileSync(path, "not json");
  expect(typeof (await journal.keyFor(entry))).toBe("string");
});
