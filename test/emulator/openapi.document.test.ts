import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect } from "vitest";
import { ROUTES } from "../../emulator/routes.js";
import { referenceOpenApi } from "../../schema/reference.js";
import { test } from "../support/emulator.js";

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown> };
};

describe("/openapi.json", () => {
  test("§9: served unauthenticated as OpenAPI 3.1.0, document version 1.0.0", async ({ api }) => {
    const { status, body } = await api.as(undefined).call<Doc>("GET", "/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(body.info.version).toBe("1.0.0");
  });

  test("§9: it describes exactly the paths and methods the emulator serves (audit log included)", async ({ api }) => {
    const { body } = await api.call<Doc>("GET", "/openapi.json");
    const described = Object.entries(body.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const served = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(described.sort()).toEqual(served.sort());
    expect(described).toContain("GET /spaces/{spaceId}/audit-log");
    for (const route of ROUTES) {
      const concrete = route.path.replace(/\{spaceId\}/, api.spaceId).replace(/\{\w+\}/g, "x");
      const result = await api.call(route.method, concrete, route.method === "GET" ? undefined : {});
      expect(
        [404, 405].includes(result.status) && /No such endpoint|not allowed/.test(result.body?.error ?? ""),
        `${route.method} ${route.path}`,
      ).toBe(false);
    }
  });

  test("every schema in the document compiles under JSON Schema 2020-12 and public lookups declare no security", async ({ api }) => {
    const { body } = await api.call<Doc>("GET", "/openapi.json");
    const ajv = new Ajv2020({ strict: false });
    ((addFormatsModule as unknown as { default?: (a: Ajv2020) => void }).default ?? (addFormatsModule as unknown as (a: Ajv2020) => void))(
      ajv,
    );
    ajv.addSchema({ $id: "https://emulator.invalid/openapi.json", components: body.components });
    const withBase = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replace(/"#\/components/g, '"https://emulator.invalid/openapi.json#/components'));
    let compiled = 0;
    for (const [path, ops] of Object.entries(body.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const response of Object.values(op.responses as Record<string, any>)) {
          const schema = response.content?.["application/json"]?.schema;
          if (schema) expect(() => ajv.compile(withBase(schema)), `${method} ${path}`).not.toThrow();
          compiled++;
        }
        const request = op.requestBody?.content?.["application/json"]?.schema;
        if (request) expect(() => ajv.compile(withBase(request)), `${method} ${path} request`).not.toThrow();
      }
    }
    expect(compiled).toBeGreaterThan(50);
    for (const path of ["/regions", "/images", "/pricing", "/openapi.json"]) expect(body.paths[path]?.get.security).toEqual([]);
    expect(JSON.stringify(body)).not.toContain('"nullable"');
  });

  test("its components are the reference's, every field as the reference has it; the emulator adds only the fields its answers carry beyond them", async ({
    api,
  }) => {
    const { body } = await api.call<Doc>("GET", "/openapi.json");
    const added: string[] = [];
    for (const [name, reference] of Object.entries(referenceOpenApi().components.schemas)) {
      const served = body.components.schemas[name] as Record<string, unknown>;
      const referenceProperties = (reference.properties ?? {}) as Record<string, unknown>;
      const servedProperties = (served.properties ?? {}) as Record<string, unknown>;
      const kept = Object.fromEntries(Object.entries(servedProperties).filter(([key]) => key in referenceProperties));
      expect({ ...served, ...(served.properties ? { properties: kept } : {}) }, name).toEqual(reference);
      added.push(
        ...Object.keys(servedProperties)
          .filter((key) => !(key in referenceProperties))
          .map((key) => `${name}.${key}`),
      );
    }
    expect(added.sort()).toEqual(["Cube.region", "Domain.originScheme", "Domain.proxyProtocol"]);
  });
});
