// The plan's reads and nothing else, with exactly CONCURRENCY requests in flight: page 1, then the
// other pages and each listed cube's domains and TCP mappings from one queue (JSON.parse only).
// Through bench/floor/latency-proxy.mjs it measures what the latency floor's formula (GETs ÷ in
// flight × round trip) leaves out: the proxy's and the server's own delays under that load.
// Usage: node reads-in-flight.mjs BASE KEY SPACE [CONCURRENCY=64]
import http from "node:http";
import { call } from "./http.mjs";
const [base, key, space, concurrencyText] = process.argv.slice(2);
const concurrency = Number(concurrencyText ?? 64);
http.globalAgent.keepAlive = true;
const S = `/spaces/${space}`;
const t0 = performance.now();
let reads = 0;
let cubes = 0;
const queue = [];
const get = async (path) => {
  reads++;
  return (await call(base, "GET", path, { key })).json;
};
const listed = (json) => {
  const page = Array.isArray(json) ? json : (json?.cubes ?? []);
  cubes += page.length;
  for (const cube of page) queue.push(`${S}/cubes/${cube.id}/domains`, `${S}/cubes/${cube.id}/tcp-mappings`);
};
const first = await get(`${S}/cubes?page=1&limit=100`);
const pages = first?.pagination?.totalPages ?? 1;
for (let page = pages; page >= 2; page--) queue.unshift(`${S}/cubes?page=${page}&limit=100`);
listed(first);
async function worker() {
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const json = await get(path);
    if (path.includes("/cubes?")) listed(json);
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
console.log(JSON.stringify({ cubes, reads, ms: Math.round(performance.now() - t0) }));
