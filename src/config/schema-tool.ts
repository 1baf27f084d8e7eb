/**
 * The part of the config's JSON Schema (./schema.ts) that describes one `tools:` entry, and the tool settings
 * `defaults:` shares with it. It imports nothing: the generator script (scripts/write-schema.mjs)
 * transpiles the schema files on their own.
 */

/** A JSON Schema given inline: any JSON Schema document. */
const anySchema = {
  type: ['object', 'boolean'],
  description: 'Any JSON Schema (2020-12 unless its own `$schema` says otherwise).',
};

const schemaFile = (what: string) => ({
  type: 'string',
  minLength: 1,
  description: `Path of a JSON or YAML file holding the ${what}; relative paths are resolved against the config file's directory.`,
});

export const onInvalid = {
  enum: ['error', 'passthrough'],
  description:
    'What to do when a result cannot be turned into valid structuredContent: `error` returns an isError result naming each failure; `passthrough` serves the tool in shadow mode (see `shadow`): listed without the configured outputSchema, every result passed through unchanged, so a strict client is never left without the structuredContent a schema it saw promised.',
};
export const shadow = {
  type: 'boolean',
  description:
    'Run the retrofit in shadow (default false): each result is retrofitted, logged and counted as usual (retrofit_outcomes_total{mode="shadow"}), but tools/list does not show the configured outputSchema and clients get the upstream result unchanged. For checking a new schema against real traffic before serving it. A tool inherits it from its upstream, an upstream from `defaults`.',
};
export const legacyRoots = {
  enum: ['wrap', 'drop'],
  description:
    'Non-object schema roots for 2025-06-18 / 2025-11-25 clients: `wrap` serves `{result: value}`; `drop` removes outputSchema and structuredContent and leaves the JSON in text.',
};
export const coerce = {
  type: 'boolean',
  description: "Coerce strings to the schema's number, integer or boolean before validating (never into a number other than the one the text spells).",
};
export const removeAdditional = (scope: string) => ({
  enum: [false, true, 'all'],
  description: `Drop properties the outputSchema does not allow before validating (ajv's removeAdditional): \`false\` (default) keeps them, \`true\` drops those where the schema says \`additionalProperties: false\`, \`all\` drops every property a schema with \`properties\` does not name. ${scope}`,
});

/** Rejects a key unless the sibling condition allows it; `why` is the whole message. */
export const forbidden = (why: string) => ({ not: {}, errorMessage: why });

const extract = {
  type: 'object',
  additionalProperties: false,
  description: 'How to find the structured value in a text result.',
  properties: {
    format: {
      enum: ['auto', 'json', 'yaml', 'regex', 'table', 'csv', 'list'],
      description:
        '`auto` (default) tries whole-text JSON, a fenced ```json block, embedded JSON, one JSON value per block, relaxed JSON, then (when the schema wants an array) pipe tables and Markdown lists, the `pattern` if one is set, then a scalar. `json`, `yaml`, `regex` use only that parser; `table` reads GitHub-flavoured pipe tables (header row = keys), `csv` RFC 4180 CSV with a header row, `list` Markdown bulleted or numbered lists (item texts, or objects with `pattern`).',
    },
    pattern: {
      type: 'string',
      minLength: 1,
      description:
        'For `format: regex` (and then required), `list` (each item matched; an item that does not match makes the list unreadable) or `auto` (tried after relaxed JSON, tables and lists): a JavaScript regular expression; named groups become fields. Run by RE2 (linear time) unless it uses lookaround or backreferences.',
    },
    flags: {
      type: 'string',
      pattern: '^(?!.*(.).*\\1)[imsu]*$',
      patternErrorMessage: 'may only hold the flags m, i, s, u, each once (use `all: true` instead of g)',
      description: 'With `pattern`: JavaScript flags among m, i, s, u. Global matching is decided by `all`.',
    },
    all: {
      type: 'boolean',
      description: 'With `pattern`: collect every match as an array (no match gives an empty array).',
    },
    select: {
      type: 'string',
      pattern: '^(/([^~]|~[01])*)*$',
      patternErrorMessage: 'must be a JSON pointer: "" or starting with "/" (escape ~ as ~0 and / as ~1)',
      description: 'A JSON pointer into the parsed value; the pointed-to value is what gets validated.',
    },
    wrap: {
      type: 'string',
      minLength: 1,
      description: 'Wrap the (selected) value as `{"<wrap>": value}`.',
    },
    delimiter: {
      type: 'string',
      pattern: '^[^"\\r\\n]$',
      patternErrorMessage: 'must be one character other than a double quote or a line break (e.g. "\\t" for TSV)',
      description: 'For `format: csv`: the field separator, one character (default `,`; `"\\t"` for TSV).',
    },
  },
  // The contract's own example sets pattern/flags/all under `format: auto`, so only the formats that never
  // use a pattern reject them.
  allOf: [
    {
      if: { properties: { format: { const: 'regex' } }, required: ['format'] },
      then: { required: ['pattern'], errorMessage: '`format: regex` needs a `pattern`' },
    },
    {
      if: { properties: { format: { enum: ['json', 'yaml', 'table', 'csv'] } }, required: ['format'] },
      then: {
        properties: {
          pattern: forbidden('`pattern` cannot be used with format json, yaml, table or csv (it is for format regex, list or auto)'),
          flags: forbidden('`flags` cannot be used with format json, yaml, table or csv (it is for format regex, list or auto)'),
          all: forbidden('`all` cannot be used with format json, yaml, table or csv (it is for format regex or auto)'),
        },
      },
    },
    {
      if: { properties: { format: { const: 'list' } }, required: ['format'] },
      then: { properties: { all: forbidden('`all` cannot be used with format list (a list is always every item)') } },
    },
    {
      if: { properties: { format: { const: 'csv' } }, required: ['format'] },
      else: { properties: { delimiter: forbidden('`delimiter` is only for format csv') } },
    },
  ],
};

export const tool = {
  type: 'object',
  additionalProperties: false,
  description: 'Retrofit settings for the tools this key matches (an exact tool name, or a glob).',
  properties: {
    outputSchema: { ...anySchema, description: 'The outputSchema to advertise and validate results against.' },
    outputSchemaFile: schemaFile('outputSchema'),
    inputSchema: { ...anySchema, description: "A replacement for the upstream's inputSchema." },
    inputSchemaFile: schemaFile('replacement inputSchema'),
    extract,
    onInvalid,
    shadow,
    legacyRoots,
    coerce,
    removeAdditional: removeAdditional(
      "Applies to values extracted from text and, because it is set on the tool itself, to the upstream's own structuredContent too. Never to isError results.",
    ),
  },
  // `type: object` inside the `not`: `required` holds for anything but an object, so without it a tool set to
  // null would be told it has both keys instead of that it must be an object.
  allOf: [
    { not: { type: 'object', required: ['outputSchema', 'outputSchemaFile'] }, errorMessage: 'use outputSchema or outputSchemaFile, not both' },
    { not: { type: 'object', required: ['inputSchema', 'inputSchemaFile'] }, errorMessage: 'use inputSchema or inputSchemaFile, not both' },
  ],
};
