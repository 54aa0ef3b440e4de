/** The public lookups: regions, images and pricing, and the hourly cost derived from them. */
import { Pricing, type CubeResources, type Image, type Region } from "../../schema/api.js";
import { badRequest, json } from "../core/http.js";
import { listOf, ref } from "../core/openapi-doc.js";
import { publicRoute, type Resource } from "../core/resource.js";

export const REGIONS: readonly Region[] = [
  { id: "reg_nbg1", name: "Nuremberg, Germany", slug: "eu-nuremberg" },
  { id: "reg_hel1", name: "Helsinki, Finland", slug: "eu-helsinki" },
  { id: "reg_ash1", name: "Ashburn, USA", slug: "us-ashburn" },
];

export const IMAGES: readonly Image[] = [
  { id: "ubuntu-24.04", name: "Ubuntu", version: "24.04", description: "Ubuntu 24.04 LTS", defaultUser: "ubuntu" },
  {
    id: "ubuntu-24.04-docker",
    name: "Ubuntu + Docker",
    version: "24.04",
    description: "Ubuntu 24.04 LTS with Docker preinstalled",
    defaultUser: "ubuntu",
  },
  { id: "debian-13", name: "Debian", version: "13", description: "Debian 13 (trixie)", defaultUser: "debian" },
  {
    id: "debian-13-docker",
    name: "Debian + Docker",
    version: "13",
    description: "Debian 13 (trixie) with Docker preinstalled",
    defaultUser: "debian",
  },
];

export const PRICING: Pricing = {
  currency: "EUR",
  rates: { vcpuPerHour: 0.004, ramGbPerHour: 0.002, diskGbPerHour: 0.00005 },
  tiers: [
    { minVcpus: 1, maxVcpus: 4, multiplier: 1, label: "Standard" },
    { minVcpus: 5, maxVcpus: 16, multiplier: 0.9, label: "Volume" },
    { minVcpus: 17, maxVcpus: null, multiplier: 0.8, label: "Scale" },
  ],
  note: "Emulated prices: billed per hour of runtime; disk is billed while the Cube exists.",
};

export function findRegion(slug: string): Region | undefined {
  return REGIONS.find((region) => region.slug === slug);
}

/** The image `id`, or a 400 naming the request's `field` and the images there are. */
export function requireImage(id: string, field: string): Image {
  const image = IMAGES.find((i) => i.id === id);
  if (!image) throw badRequest(`${field}: unknown image "${id}"; available: ${IMAGES.map((i) => i.id).join(", ")}`);
  return image;
}

/** The region of `slug` (the first region when none is given), or a 400 naming the regions there are. */
export function requireRegion(slug: string | null | undefined): Region {
  const region = slug == null ? REGIONS[0] : findRegion(slug);
  if (!region) throw badRequest(`region: unknown region "${slug}"; available: ${REGIONS.map((r) => r.slug).join(", ")}`);
  return region;
}

export function costPerHour(resources: CubeResources): number {
  const { rates, tiers } = PRICING;
  const tier = tiers.find((t) => resources.vcpu >= t.minVcpus && (t.maxVcpus === null || resources.vcpu <= t.maxVcpus));
  const base = resources.vcpu * rates.vcpuPerHour + resources.ramGb * rates.ramGbPerHour + resources.diskGb * rates.diskGbPerHour;
  return Math.round(base * (tier?.multiplier ?? 1) * 1e6) / 1e6;
}

/** Public: no API key needed. */
export const catalogResource: Resource = {
  routes: [
    publicRoute("GET", "/regions", () => json(200, { regions: REGIONS }), {
      summary: "List regions",
      tag: "Public",
      ok: [200, listOf("regions", "Region")],
    }),
    publicRoute("GET", "/images", () => json(200, { images: IMAGES }), {
      summary: "List OS images",
      tag: "Public",
      ok: [200, listOf("images", "Image")],
    }),
    publicRoute("GET", "/pricing", () => json(200, PRICING), {
      summary: "Hourly rates and volume tiers",
      tag: "Public",
      ok: [200, ref("Pricing")],
    }),
  ],
  schemas: { Pricing: Pricing },
};
