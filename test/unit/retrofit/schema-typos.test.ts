/** schemaTypos: near-misses of JSON Schema keywords, found at every schema position, and nothing else (issue 25). */
import { describe, expect, it } from 'vitest';
import { schemaTypos } from '../../../src/retrofit/schema-typos.js';

describe('schemaTypos', () => {
  it('finds near-misses under properties, items, combinators and $defs, with the keyword meant', () => {
    const schema = {
      type: 'object',
      requird: ['a'],
      properties: { a: { tpye: 'string', minLenght: 2 }, enum: { type: 'string' } },
      items: [{ formt: 'uri' }],
      anyOf: [{ maximun: 3 }],
      $defs: { d: { additionalPropertie: false } },
    };
    expect(schemaTypos(schema).map((t) => [t.path.join('/'), t.keyword])).toEqual([
      ['requird', 'required'],
      ['properties/a/tpye', 'type'],
      ['properties/a/minLenght', 'minLength'],
      ['items/0/formt', 'format'],
      ['anyOf/0/maximun', 'maximum'],
      ['$defs/d/additionalPropertie', 'additionalProperties'],
    ]);
  });

  it('leaves keywords, x- annotations, common OpenAPI words, far-off names and values alone', () => {
    const schema = {
      type: 'object',
      'x-requird': 1,
      example: { requird: 1 },
      nullable: true,
      units: 'celsius',
      enum: [{ tpye: 1 }],
      default: { tpye: 1 },
      properties: { requird: { type: 'string' } },
    };
    expect(schemaTypos(schema)).toEqual([]);
  });
});
