// The contract check: every WebSocket frame a page sends or receives must
// match the protocol's JSON Schema, `schema/protocol.json`, which
// crates/protocol/tests/schema.rs generates from oxo-protocol's Rust types
// (regenerate it with `OXO_BLESS=1 cargo test -p oxo-protocol --features
// schema --test schema`). support/fixtures.js runs `checkFrame` on every
// frame of every page, so every spec is covered.
//
// Two things are stricter here than the schema as written, because a test
// is the place to be strict:
//
// - objects are closed: a field the types do not have (a typo such as
//   `gameId`, or a field the server no longer reads) is a mismatch, although
//   serde would ignore it (`unevaluatedProperties: false` on every
//   definition);
// - the integer formats schemars writes (`uint32`, `uint64`, ...) are
//   checked as ranges.
//
// A frame is validated against the variant its `type` names, so that a
// mismatch reads as one error, not one per variant.

import Ajv2020 from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';

const SCHEMA_FILE = new URL('../schema/protocol.json', import.meta.url);

/** Integer ranges of schemars' formats. */
const INTEGER_FORMATS = {
  uint8: [0, 2 ** 8 - 1],
  uint32: [0, 2 ** 32 - 1],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  uint: [0, Number.MAX_SAFE_INTEGER],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** The property every variant of `oneOf` fixes with a `const`, if any. */
function tagOf(variants) {
  const tags = variants.map((v) => Object.keys(v.properties ?? {}).find((k) => 'const' in v.properties[k]));
  const [tag] = tags;
  return tag && tags.every((t) => t === tag) ? tag : null;
}

/** Whether `schema` describes objects (a struct, or an enum of objects). */
function isObject(schema) {
  return schema.type === 'object' || (Array.isArray(schema.oneOf) && schema.oneOf.every((v) => v.type === 'object'));
}

/**
 * The schema as the tests use it: closed objects, and each variant of the
 * two frame enums as a definition of its own (`Request.move`), with the
 * enum's own fields (`id`) merged in.
 */
function strictSchema() {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
  for (const def of Object.values(schema.$defs)) {
    if (!isObject(def)) continue;
    def.type = 'object';
    def.unevaluatedProperties = false;
  }
  const frames = {};
  for (const [direction, root] of [['sent', 'client_frame'], ['received', 'server_frame']]) {
    const name = schema.roots[root].$ref.split('/').pop();
    const def = schema.$defs[name];
    const tag = tagOf(def.oneOf);
    const variants = {};
    for (const variant of def.oneOf) {
      const value = variant.properties[tag].const;
      schema.$defs[`${name}.${value}`] = {
        ...variant,
        properties: { ...def.properties, ...variant.properties },
        unevaluatedProperties: false,
      };
      variants[value] = `${name}.${value}`;
    }
    frames[direction] = { name, tag, variants };
  }
  return { schema, frames };
}

function compile() {
  const { schema, frames } = strictSchema();
  const ajv = new Ajv2020({ allErrors: true });
  // `roots` documents which definition is which message; nothing to check.
  ajv.addVocabulary(['roots']);
  for (const [name, [min, max]] of Object.entries(INTEGER_FORMATS)) {
    ajv.addFormat(name, { type: 'number', validate: (n) => Number.isInteger(n) && n >= min && n <= max });
  }
  ajv.addSchema(schema);
  const byName = (def) => ajv.compile({ $ref: `${schema.$id}#/$defs/${def}` });
  for (const f of Object.values(frames)) {
    f.validators = Object.fromEntries(Object.entries(f.variants).map(([value, def]) => [value, byName(def)]));
  }
  return { ajv, frames };
}

let compiled = null;

/**
 * Checks one frame: `direction` is 'sent' (page → server, a `Request`) or
 * 'received' (server → page, a `ServerMsg`). Returns null when it matches,
 * else what is wrong, in words.
 */
export function checkFrame(direction, payload) {
  compiled ??= compile();
  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  let frame;
  try {
    frame = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const { name, tag, validators } = compiled.frames[direction];
  const value = frame?.[tag];
  const validate = typeof value === 'string' && Object.hasOwn(validators, value) ? validators[value] : null;
  if (!validate) return `not a ${name}: unknown ${tag} ${JSON.stringify(value)}`;
  if (validate(frame)) return null;
  return `not a ${name} of ${tag} "${value}": ${explain(validate.errors ?? [])}`;
}

/** ajv's errors in words, each naming the field and what it should be. */
function explain(errors) {
  const lines = errors.map(({ instancePath, message, params }) => {
    const where = `frame${instancePath.replaceAll('/', '.')}`;
    let what = message ?? 'is wrong';
    if (params.unevaluatedProperty !== undefined) what += `: "${params.unevaluatedProperty}"`;
    if (params.allowedValue !== undefined) what += ` ${JSON.stringify(params.allowedValue)}`;
    if (params.allowedValues !== undefined) what += ` ${JSON.stringify(params.allowedValues)}`;
    return `${where} ${what}`;
  });
  return [...new Set(lines)].join('; ');
}
