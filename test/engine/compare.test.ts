/** canonical: one spelling per meaning, so that a field the API and the file spell differently is not a change. */
import { expect, test } from "vitest";
import { canonical, sameValue } from "../../engine/index.js";

test("nothing is null however it is spelt: undefined, null, [], {}, and objects whose members are all empty", () => {
  for (const empty of [undefined, null, [], {}, { a: null, b: [], c: { d: {} } }]) expect(canonical(empty)).toBeNull();
  expect(sameValue({ ipAllowList: [] }, null)).toBe(true);
});

test("key order never matters; the empty members are dropped, the rest kept as they are", () => {
  const a = canonical({ b: 1, a: { z: "x", y: [] }, c: [2, 1] });
  expect(JSON.stringify(a)).toBe('{"a":{"z":"x"},"b":1,"c":[2,1]}');
  expect(sameValue({ x: 1, y: 2 }, { y: 2, x: 1 })).toBe(true);
  expect(sameValue({ x: 1 }, { x: 2 })).toBe(false);
  expect(canonical(0)).toBe(0);
  expect(canonical(false)).toBe(false);
  expect(canonical("")).toBe("");
});

test("a header named __proto__ is a key like any other (not the object's prototype)", () => {
  const headers = JSON.parse('{"__proto__": "x-value", "b": "1"}');
  const out = canonical(headers) as Record<string, unknown>;
  expect(JSON.stringify(out)).toBe('{"__proto__":"x-value","b":"1"}');
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  expect(sameValue(headers, JSON.parse('{"b": "1", "__proto__": "other"}'))).toBe(false);
});
