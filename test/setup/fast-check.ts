/**
 * Property tests (fast-check) run from a fixed seed, so `npm test` is the same run on every machine and a
 * failure on CI replays at a desk. `FC_SEED=N` runs them from seed N; `FC_SEED=random` from a fresh seed per
 * property (fast-check prints it with any counterexample), for exploring: `FC_SEED=random npm run test:unit`.
 */
import fc from 'fast-check';

const FIXED_SEED = 20261207;
const asked = process.env.FC_SEED;

if (asked !== 'random') {
  const seed = asked === undefined || asked === '' ? FIXED_SEED : Number(asked);
  if (!Number.isInteger(seed)) throw new Error(`FC_SEED is an integer or "random", not ${JSON.stringify(asked)}`);
  fc.configureGlobal({ seed });
}
