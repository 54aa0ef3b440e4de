/**
 * How a route describes itself in the served OpenAPI document (emulator/openapi.ts builds the
 * document from the routes): the helpers below write the response shapes.
 */
import type * as z from "zod/mini";
import { SuccessResponse } from "../../schema/api.js";

export type Schema = Record<string, unknown>;

/** A shape in the document: JSON Schema, or a zod schema of schema/ (made into JSON Schema with the document). */
export type Shape = Schema | z.core.$ZodType;

export interface Operation {
  summary: string;
  tag: string;
  /** The zod schema the route validates its JSON body with. */
  body?: z.ZodMiniType;
  /** A POST body is required unless this is set. */
  bodyOptional?: true;
  ok: [number, Shape | null];
  errors?: number[];
  query?: Schema[];
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const object = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: "object",
  properties,
  required,
});
export const single = (key: string, item: string): Schema => object({ [key]: ref(item) });
export const listOf = (key: string, item: string): Schema => object({ [key]: { type: "array", items: ref(item) } });
export const SUCCESS_SCHEMA: Shape = SuccessResponse;
export const intQueryParam = (name: string, min: number, max: number, description: string): Schema => ({
  name,
  in: "query",
  required: false,
  description,
  schema: { type: "integer", minimum: min, maximum: max },
});

export function withProperties(schema: Schema, properties: Record<string, Schema>): Schema {
  return { ...schema, properties: { ...(schema.properties as Record<string, Schema>), ...properties } };
}
