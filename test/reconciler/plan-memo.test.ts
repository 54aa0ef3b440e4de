/** The watch's plan memo compares what it observed with sameJson: equal values, walked only where not shared. */
import { expect, test } from "vitest";
import { sameJson } from "../../reconciler/session/session.js";

test("sameJson: equal JSON values, whatever the key order; any difference counts", () => {
  const shared = { id: "c1", tags: ["a", "b"] };
  expect(sameJson({ a: 1, b: [shared, null, "x"] }, { b: [shared, null, "x"], a: 1 })).toBe(true);
  expect(sameJson({ a: { b: [1, { c: true }] } }, { a: { b: [1, { c: true }] } })).toBe(true);
  expect(sameJson({ a: { b: [1, { c: true }] } }, { a: { b: [1, { c: false }] } })).toBe(false);
  expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
  expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  expect(sameJson({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
  expect(sameJson({ a: [] }, { a: {} })).toBe(false);
  expect(sameJson({ a: null }, { a: {} })).toBe(false);
  expect(sameJson("1", 1)).toBe(false);
});
