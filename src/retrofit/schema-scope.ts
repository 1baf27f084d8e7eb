/**
 * The ajv instances schemas compile in, and how long each lives.
 *
 * An ajv instance keeps every schema it compiled (its cache, keyed by the schema object) and everything a
 * compilation added to its code scope, even after removeSchema; and every validator holds that code scope. So
 * an instance must live no longer than the validators compiled in it, or each config generation's validators
 * stay for good (a reload leaked ~40 KB of the demo config's). A SchemaScope is made for one batch of
 * validators that live and die together — one upstream's tools of one config generation, one tool compiled
 * by an offload worker — and is reachable only through them: a generation's compiled schemas are freed with
 * its policy, once no request or session holds it.
 *
 * Compiling instances do not validate schemas themselves (validateSchema: false): compileSchema has checked
 * the schema already on a long-lived meta instance, which never keeps a schema it checks. So a new instance
 * costs its construction (~1 ms), not a compilation of the meta-schema (~40 ms).
 */
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { RemoveAdditional } from './settings.js';
import { linearUniqueItems } from './unique-items.js';
import { schemaRegExp } from './schema-regexp.js';

/** The JSON Schema dialects we validate. */
export type Dialect = '2020-12' | '2019-09' | 'draft-07';

const OPTIONS: Options = { strict: false, allErrors: false, logger: false, validateFormats: true, code: { regExp: schemaRegExp } };

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const DRAFT_06_META = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'http://json-schema.org/draft-06/schema#',
};

/** A new instance; removeAdditional and allErrors are instance options, so one instance per dialect and modes. */
function createAjv(dialect: Dialect, removeAdditional: RemoveAdditional, allErrors: boolean, validateSchema: boolean): Ajv {
  const options: Options = { ...OPTIONS, allErrors, validateSchema, ...(removeAdditional !== false && { removeAdditional }) };
  let ajv: Ajv;
  if (dialect === '2020-12') ajv = new Ajv2020(options);
  else if (dialect === '2019-09') ajv = new Ajv2019(options);
  else {
    ajv = new Ajv(options);
    // draft-06 documents are accepted by the draft-07 instance once its meta-schema is known.
    ajv.addMetaSchema(DRAFT_06_META);
  }
  addFormats(ajv);
  linearUniqueItems(ajv);
  return ajv;
}

/** Instances that check schemas against their dialect's meta-schema, listing every mistake; never compile one. */
const meta = new Map<Dialect, Ajv>();

/** The instance that meta-validates schemas of `dialect` (validateSchema adds nothing to it, so it is kept). */
export function metaAjv(dialect: Dialect): Ajv {
  let ajv = meta.get(dialect);
  if (!ajv) {
    ajv = createAjv(dialect, false, true, true);
    meta.set(dialect, ajv);
  }
  return ajv;
}

/** A compiling instance nobody else uses: for schemas that declare `$id`s, and for twins that list every problem. */
export function ownAjv(dialect: Dialect, removeAdditional: RemoveAdditional, allErrors: boolean): Ajv {
  return createAjv(dialect, removeAdditional, allErrors, false);
}

/** Compiling instances for validators that live and die together (see the module comment). */
export class SchemaScope {
  readonly #instances = new Map<string, Ajv>();

  /** The scope's instance for this dialect and mode, made on first use. */
  ajv(dialect: Dialect, removeAdditional: RemoveAdditional): Ajv {
    const key = `${dialect} ${String(removeAdditional)}`;
    let ajv = this.#instances.get(key);
    if (!ajv) {
      ajv = ownAjv(dialect, removeAdditional, false);
      this.#instances.set(key, ajv);
    }
    return ajv;
  }
}

/**
 * The scope for schemas compiled only for their verdict (those upstreams declare: any number of them). Each is
 * removed after its compilation, but what it added to the code scope stays, so the scope is replaced after
 * TRANSIENT_USES compilations and what it held goes with it.
 */
const TRANSIENT_USES = 256;
let transient = new SchemaScope();
let transientUses = 0;

/** The scope a verdict-only compilation uses. */
export function transientScope(): SchemaScope {
  if (++transientUses > TRANSIENT_USES) {
    transient = new SchemaScope();
    transientUses = 1;
  }
  return transient;
}
