/**
 * Synthetic tool outputs of a given size and the schema they satisfy: a list of weather readings, the kind
 * of JSON legacy servers print as text. Deterministic, so every run measures the same bytes.
 */

/** The schema of one reading. */
const ITEM = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    city: { type: 'string' },
    temperature: { type: 'number' },
    conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain', 'snow'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['id', 'city', 'temperature', 'conditions'],
};

/** Schema of a whole result: an object holding the readings. */
export const OBJECT_SCHEMA = {
  type: 'object',
  properties: { station: { type: 'string' }, readings: { type: 'array', items: ITEM } },
  required: ['station', 'readings'],
};

/** Schema of a several-blocks result: one reading per text block, collected as an array. */
export const ARRAY_SCHEMA = { type: 'array', items: ITEM };

const CITIES = ['Paris', 'Lyon', 'Oslo', 'Lima', 'Quito', 'Hanoi', 'Perth', 'Cairo'];
const CONDITIONS = ['sunny', 'cloudy', 'rain', 'snow'];

function reading(i) {
  return { id: i, city: CITIES[i % CITIES.length], temperature: ((i * 7) % 400) / 10 - 5, conditions: CONDITIONS[i % 4], tags: ['hourly', `s${i % 13}`] };
}

/** Readings whose JSON is about `bytes` long. */
export function readings(bytes) {
  const one = JSON.stringify(reading(0)).length + 1;
  const n = Math.max(1, Math.round(bytes / one));
  return Array.from({ length: n }, (_, i) => reading(i));
}

/** An object result of about `bytes` of JSON. */
export function objectValue(bytes) {
  return { station: 'bench', readings: readings(bytes) };
}

/** The four text shapes the contract's `auto` extraction handles, as CallToolResult content. */
export function shapes(bytes) {
  const value = objectValue(bytes);
  const json = JSON.stringify(value);
  const items = value.readings;
  return {
    whole: { content: [{ type: 'text', text: json }], schema: OBJECT_SCHEMA, floorTexts: [json] },
    fenced: { content: [{ type: 'text', text: `Here is the report:\n\n\`\`\`json\n${json}\n\`\`\`\n` }], schema: OBJECT_SCHEMA, floorTexts: [json] },
    prose: { content: [{ type: 'text', text: `The station reported the following readings ${json} and nothing else today.` }], schema: OBJECT_SCHEMA, floorTexts: [json] },
    blocks: { content: items.map((r) => ({ type: 'text', text: JSON.stringify(r) })), schema: ARRAY_SCHEMA, floorTexts: items.map((r) => JSON.stringify(r)), array: true },
  };
}

/** A small result text, the usual size of a tool answer: about 200 bytes of JSON (issue 23's "200-byte result"). */
export const SMALL_TEXT = JSON.stringify({ station: 'bench', readings: [reading(1), reading(2)] });
