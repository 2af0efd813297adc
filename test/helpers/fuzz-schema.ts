// The fuzz suite's values: for each field of a JSON Schema (the OpenAPI document's), the bad
// values that can be sent in it (wrong types, empty, huge, unicode, CRLF, out of range), picked
// by a seeded PRNG so a failure names a case that replays exactly.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = Record<string, unknown>;

/** One value to put at a field, and whether the route must refuse it. */
export interface FuzzValue {
  kind: "wrong_type" | "empty" | "huge" | "unicode" | "crlf" | "out_of_range" | "ill_formed";
  value: Json;
  /** The schema says this can never be valid (a wrong type, a number past its bounds). */
  mustRefuse: boolean;
}

/** A field of a body: its dotted path and its schema (resolved). */
export interface Field {
  path: string;
  schema: Schema;
}

const HUGE_TEXT = "a".repeat(150_000);

export function resolve(doc: Schema, schema: unknown): Schema {
  let node = (schema ?? {}) as Schema;
  for (let hops = 0; typeof node.$ref === "string" && hops < 10; hops++) {
    const name = (node.$ref as string).replace("#/components/schemas/", "");
    node = ((doc.components as Schema).schemas as Record<string, Schema>)[name] ?? {};
  }
  return node;
}

/** The types a schema admits ("string", "number", ...), empty when it admits anything. */
export function typesOf(doc: Schema, schema: Schema): string[] {
  const node = resolve(doc, schema);
  if (Array.isArray(node.type)) return node.type as string[];
  if (typeof node.type === "string") return [node.type];
  const variants = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (variants === undefined) return [];
  const types = variants.map((variant) => typesOf(doc, variant));
  return types.some((list) => list.length === 0) ? [] : [...new Set(types.flat())];
}

/** The variant of a union the value is an instance of (by its enums), else the first. */
function variantFor(doc: Schema, schema: Schema, value: Json | undefined): Schema {
  const node = resolve(doc, schema);
  const variants = (node.oneOf ?? node.anyOf) as Schema[] | undefined;
  if (variants === undefined) return node;
  const matching = variants.find((variant) => {
    const properties = (resolve(doc, variant).properties ?? {}) as Record<string, Schema>;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    return Object.entries(properties).every(([key, property]) => {
      const allowed = resolve(doc, property).enum as Json[] | undefined;
      return allowed === undefined || value[key] === undefined || allowed.includes(value[key] as Json);
    });
  });
  return resolve(doc, matching ?? variants[0]);
}

/**
 * Every field of `schema` down to `depth` levels: the properties of objects (those of the base's
 * union variant), and the first item of arrays the base fills.
 */
export function fieldsOf(
  doc: Schema,
  schema: Schema,
  base: Json | undefined,
  prefix = "",
  depth = 3,
): Field[] {
  const node = variantFor(doc, schema, base);
  const fields: Field[] = [];
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  for (const [key, property] of Object.entries(properties)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const resolved = resolve(doc, property);
    fields.push({ path, schema: resolved });
    const child = typeof base === "object" && base !== null && !Array.isArray(base) ? base[key] : undefined;
    if (depth > 1 && child !== undefined) fields.push(...fieldsOf(doc, resolved, child, path, depth - 1));
  }
  const items = node.items as Schema | undefined;
  if (items !== undefined && Array.isArray(base) && base.length > 0 && depth > 1) {
    fields.push(...fieldsOf(doc, resolve(doc, items), base[0], `${prefix}.0`, depth - 1));
  }
  return fields;
}

/** Bad values for one field, chosen by `random` (at most `take`). */
export function valuesFor(doc: Schema, field: Field, random: () => number, take: number): FuzzValue[] {
  const types = typesOf(doc, field.schema);
  const typed = types.length > 0;
  const all: FuzzValue[] = [];
  const wrong = (value: Json): FuzzValue => ({ kind: "wrong_type", value, mustRefuse: true });
  if (typed && !types.includes("string")) all.push(wrong("12"), wrong("a\r\nb"));
  if (typed && !types.includes("number") && !types.includes("integer")) all.push(wrong(12345), wrong(-1.5));
  if (typed && !types.includes("boolean")) all.push(wrong(true));
  if (typed && !types.includes("object")) all.push(wrong({ nested: { deeper: [1] } }));
  if (typed && !types.includes("array")) all.push(wrong(["x", 1]));
  if (typed && !types.includes("null")) all.push(wrong(null));
  all.push({ kind: "empty", value: "", mustRefuse: false }, { kind: "empty", value: {}, mustRefuse: false });
  all.push({ kind: "empty", value: [], mustRefuse: false });
  all.push({ kind: "huge", value: HUGE_TEXT, mustRefuse: false });
  all.push({
    kind: "huge",
    value: Array.from({ length: 3_000 }, (_, index) => `item-${index}`),
    mustRefuse: false,
  });
  all.push({ kind: "unicode", value: "😀 Ünïcödé ​ 中文 \u202e", mustRefuse: false });
  all.push({ kind: "crlf", value: "a\r\nInjected: yes\r\n\r\nbody", mustRefuse: false });
  all.push({ kind: "ill_formed", value: "\ud800 lone surrogate", mustRefuse: true });
  all.push(...outOfRange(field.schema));
  return shuffled(all, random).slice(0, take);
}

function outOfRange(schema: Schema): FuzzValue[] {
  const values: FuzzValue[] = [];
  const numeric = schema.type === "integer" || schema.type === "number";
  if (typeof schema.maximum === "number") values.push(refused(schema.maximum + 1));
  if (typeof schema.minimum === "number") values.push(refused(schema.minimum - 1));
  if (schema.type === "integer") values.push(refused(1.5));
  if (numeric) values.push({ kind: "out_of_range", value: 1e21, mustRefuse: false });
  if (numeric) values.push({ kind: "out_of_range", value: -(2 ** 53) - 2, mustRefuse: false });
  if (typeof schema.maxLength === "number" && schema.maxLength < 100_000)
    values.push(refused("x".repeat(schema.maxLength + 1)));
  if (Array.isArray(schema.enum)) values.push(refused(`${String(schema.enum[0])}-not-one`));
  return values;
}

function refused(value: Json): FuzzValue {
  return { kind: "out_of_range", value, mustRefuse: true };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/** A deep copy of `base` with `value` at the dotted `path` (numeric parts index arrays). */
export function withValue(base: Json, path: string, value: Json): Json {
  const copy = JSON.parse(JSON.stringify(base)) as Json;
  const parts = path.split(".");
  let node = copy as Record<string, Json>;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== "object" || next === null) node[part] = {};
    node = node[part] as Record<string, Json>;
  }
  node[parts[parts.length - 1] as string] = value;
  return copy;
}
