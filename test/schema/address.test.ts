/**
 * schema/address.ts checks addresses with node:net's own expressions (copied, so that loading
 * the file's schema does not load node:net): they must answer as node:net does.
 */
import { isIPv4 as netIsIPv4, isIPv6 as netIsIPv6 } from "node:net";
import { expect, test } from "vitest";
import { isIPv4, isIPv6 } from "../../schema/address.js";

/** Pieces that make near-misses: segments at the edges, separators, zone indexes, junk. */
const PIECES = [
  "0",
  "1",
  "9",
  "10",
  "99",
  "100",
  "199",
  "200",
  "249",
  "250",
  "255",
  "256",
  "300",
  "01",
  "001",
  "0x1",
  "-1",
  "ffff",
  "FFFF",
  "fffff",
  "db8",
  "2001",
  "g",
  "",
  ":",
  "::",
  ".",
  "..",
  "%eth0",
  "%",
  "%1",
  " ",
  "/24",
];

function* candidates(): Generator<string> {
  yield* [
    "",
    "1.2.3.4",
    "255.255.255.255",
    "256.1.1.1",
    "1.2.3",
    "::",
    "::1",
    "1::",
    "2001:db8::1",
    "::ffff:1.2.3.4",
    "fe80::1%eth0",
    "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    ":::",
    "::ffff:256.1.1.1",
    "1:2:3:4:5:6:1.2.3.4",
    "1:2:3:4:5:6:7:1.2.3.4",
  ];
  let seed = 42;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let i = 0; i < 20_000; i++) {
    const v6 = random(2) === 0;
    const count = v6 ? 1 + random(10) : random(3) === 0 ? 1 + random(6) : 4;
    const parts = Array.from({ length: count }, () => PIECES[random(PIECES.length)]!);
    const joiner = v6 ? (random(5) === 0 ? "::" : ":") : ".";
    yield parts.join(joiner) + (random(8) === 0 ? `.${random(300)}.${random(300)}.${random(300)}.${random(300)}`.slice(1) : "");
  }
}

test("isIPv4 and isIPv6 answer as node:net's for 20,000 near-miss addresses", () => {
  let v4 = 0;
  let v6 = 0;
  for (const text of candidates()) {
    expect(isIPv4(text), text).toBe(netIsIPv4(text));
    expect(isIPv6(text), text).toBe(netIsIPv6(text));
    if (netIsIPv4(text)) v4++;
    if (netIsIPv6(text)) v6++;
  }
  // The generator reaches both answers for both families.
  expect(v4, "v4").toBeGreaterThan(30);
  expect(v6, "v6").toBeGreaterThan(30);
});
