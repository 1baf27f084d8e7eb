/**
 * fast-check for property tests, run from a fixed seed: `npm test` is the same run on every machine, and a
 * failure on CI replays at a desk. `FC_SEED=N` runs them from seed N; `FC_SEED=random` from a fresh seed per
 * property (fast-check prints it with any counterexample), for exploring: `FC_SEED=random npm run test:unit`.
 * Property tests import fc from here, not from 'fast-check', so the seed is set wherever one runs (and files
 * without properties do not load the library).
 */
import fc from 'fast-check';

const FIXED_SEED = 20261207;
const asked = process.env.FC_SEED;

if (asked !== 'random') {
  const seed = asked === undefined || asked === '' ? FIXED_SEED : Number(asked);
  if (!Number.isInteger(seed)) throw new Error(`FC_SEED is an integer or "random", not ${JSON.stringify(asked)}`);
  fc.configureGlobal({ seed });
}

export default fc;
