/**
 * What the client's quick response check (client/fast-check.ts) costs on the answers a plan
 * reads by the thousand: a page of 100 cubes, and a cube's domains and TCP mappings, exactly
 * as the emulator sends them (the bench fleet: two domains and three mappings per cube), beside
 * zod/mini's parse of the same answers (what the client does without the quick check).
 *
 *   npx tsx bench/fast-check.ts [ROUNDS]
 *
 * Each round checks freshly parsed answers (as a plan does), so nothing is answered from a
 * warm object; it prints the first answer alone (with whatever the check builds on first use),
 * the first round (mostly before V8 optimizes) and the median of the rest.
 */
import { cubePageOf, domainsOf, tcpMappingsOf } from "../client/fast-check.js";
import { ListCubes, ListDomains, ListTcpMappings } from "../client/response-schemas.js";
import { createEmulatorApp } from "../emulator/index.js";
import { appSender, fleet, seedCube } from "./fleet.js";

const CUBES = 100;
const ANSWERS_PER_ROUND = 200;
const ROUNDS = Number(process.argv[2] ?? 30);
const API_KEY = "cube_bench_fast_check";
const SPACE_ID = "space-bench";

async function emulatorAnswers(): Promise<{ page: string; domains: string; mappings: string }> {
  const app = createEmulatorApp({ apiKey: API_KEY, spaceId: SPACE_ID, rateLimit: { limit: 1e9, windowMs: 1000 }, clockSpeed: 1 });
  try {
    const send = appSender(app, API_KEY);
    for (const cube of fleet(CUBES)) await seedCube(send, SPACE_ID, cube);
    app.admin.advanceClock(60_000);
    const text = async (path: string) => JSON.stringify((await send("GET", `/spaces/${SPACE_ID}${path}`)).body);
    const page = await text(`/cubes?page=1&limit=${CUBES}`);
    const id = (JSON.parse(page) as { cubes: { id: string }[] }).cubes[0]!.id;
    return { page, domains: await text(`/cubes/${id}/domains`), mappings: await text(`/cubes/${id}/tcp-mappings`) };
  } finally {
    app.close();
  }
}

/** Microseconds per answer for `check` over ANSWERS_PER_ROUND fresh parses of `text`. */
function round(text: string, check: (body: unknown) => unknown): number {
  const bodies = Array.from({ length: ANSWERS_PER_ROUND }, () => JSON.parse(text) as unknown);
  const started = performance.now();
  for (const body of bodies) if (check(body) === undefined) throw new Error("an emulator answer was refused");
  return ((performance.now() - started) * 1000) / ANSWERS_PER_ROUND;
}

/** What the client does without the quick check: zod's verdict (undefined: refused). */
const zodParse =
  (schema: { safeParse(body: unknown): { success: boolean; data?: unknown } }) =>
  (body: unknown): unknown => {
    const result = schema.safeParse(body);
    return result.success ? result.data : undefined;
  };

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const answers = await emulatorAnswers();
const cases: [string, string, (body: unknown) => unknown][] = [
  [`page of ${CUBES} cubes`, answers.page, cubePageOf],
  ["a cube's domains", answers.domains, domainsOf],
  ["a cube's TCP mappings", answers.mappings, tcpMappingsOf],
  [`zod: page of ${CUBES} cubes`, answers.page, zodParse(ListCubes)],
  ["zod: a cube's domains", answers.domains, zodParse(ListDomains)],
  ["zod: a cube's TCP mappings", answers.mappings, zodParse(ListTcpMappings)],
];
for (const [name, text, check] of cases) {
  const body = JSON.parse(text) as unknown;
  const started = performance.now();
  check(body);
  const firstMs = performance.now() - started;
  const times = Array.from({ length: ROUNDS }, () => round(text, check));
  process.stdout.write(
    `${name.padEnd(28)} first answer ${(firstMs * 1000).toFixed(0).padStart(5)} µs   first round ${times[0]!.toFixed(2).padStart(7)} µs/answer   median of ${ROUNDS - 1} ${median(times.slice(1)).toFixed(2).padStart(7)} µs/answer\n`,
  );
}
