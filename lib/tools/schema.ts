// The subset of JSON Schema our tool parameters use, and a strict validator for it. The same
// object is sent to the model and checks the model's arguments, so the two cannot drift.

export type PropertySchema =
  | { type: "string"; description?: string; enum?: readonly string[] }
  | { type: "integer"; description?: string; minimum?: number; maximum?: number }
  | { type: "boolean"; description?: string };

export type ObjectSchema = {
  type: "object";
  properties: Record<string, PropertySchema>;
  required: readonly string[];
  additionalProperties: false;
};

export type Keyword = "type" | "required" | "additionalProperties" | "minimum" | "maximum" | "enum";

/**
 * A tool's own wording for one violation, keyed `<property>.<keyword>`; the text replaces the
 * whole message (no `invalid arguments: ` prefix), as for `read limit must be positive`.
 */
export type MessageOverrides = Partial<Record<string, string>>;

export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

const INVALID = "invalid arguments: ";

/** Validates `value` against `schema`; errors are `invalid arguments: <detail>` or an override. */
export function validateArguments<T = Record<string, unknown>>(
  schema: ObjectSchema,
  value: unknown,
  overrides: MessageOverrides = {},
): Validation<T> {
  const fail = (property: string, keyword: Keyword, detail: string): Validation<T> => {
    const custom = overrides[`${property}.${keyword}`];
    return { ok: false, error: custom ?? INVALID + detail };
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `${INVALID}expected a JSON object, found ${describe(value)}` };
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(schema.properties, key)) {
      return fail(key, "additionalProperties", `unknown property ${JSON.stringify(key)}`);
    }
  }
  for (const key of schema.required) {
    if (!Object.hasOwn(record, key)) {
      return fail(key, "required", `missing required property ${JSON.stringify(key)}`);
    }
  }
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    const name = JSON.stringify(key);
    switch (property.type) {
      case "string":
        if (typeof item !== "string") return fail(key, "type", `${name} must be a string, found ${describe(item)}`);
        if (property.enum !== undefined && !property.enum.includes(item)) {
          const choices = property.enum.map((choice) => JSON.stringify(choice)).join(", ");
          return fail(key, "enum", `${name} must be one of ${choices}`);
        }
        break;
      case "integer":
        if (typeof item !== "number" || !Number.isInteger(item)) {
          return fail(key, "type", `${name} must be an integer, found ${describe(item)}`);
        }
        if (property.minimum !== undefined && item < property.minimum) {
          return fail(key, "minimum", `${name} must be at least ${property.minimum}`);
        }
        if (property.maximum !== undefined && item > property.maximum) {
          return fail(key, "maximum", `${name} must be at most ${property.maximum}`);
        }
        break;
      case "boolean":
        if (typeof item !== "boolean") return fail(key, "type", `${name} must be a boolean, found ${describe(item)}`);
        break;
    }
  }
  return { ok: true, value: record as T };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return Number.isInteger(value) ? "an integer" : "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/** The optional `timeout_seconds` of tools that run something (bash, exec): 1 to `max`, else `fallback`. */
export function timeoutSecondsProperty(fallback: number, max: number, stops: string): PropertySchema {
  return {
    type: "integer",
    minimum: 1,
    maximum: max,
    description: `Seconds before ${stops}. Defaults to ${fallback}; at most ${max}.`,
  };
}
