/**
 * The Learn cache: one result per recording upstream, computed again only when its recordings directory
 * changed (./learn.ts signature) or the config generation did (the running entries differ), and looked at
 * no more than once every RECHECK_MS. One computation per upstream at a time; callers share it. Holds one
 * entry per configured upstream that records, at most.
 */
import type { Generations } from '../config/generations.js';
import type { LoadedConfig } from '../config/load.js';
import { learn, RECHECK_MS, signature, type LearnView } from './learn.js';

interface Cached {
  readonly signature: string;
  readonly generation: LoadedConfig;
  readonly checkedAt: number;
  readonly view: LearnView;
}

export class Learner {
  readonly #generations: Generations;
  readonly #now: () => number;
  readonly #cache = new Map<string, Cached>();
  readonly #running = new Map<string, Promise<LearnView>>();

  constructor(generations: Generations, now: () => number) {
    this.#generations = generations;
    this.#now = now;
  }

  /** The upstream's Learn view; undefined when it does not record. `fresh`: look at the directory now. */
  view(name: string, fresh = false): Promise<LearnView> | undefined {
    const generation = this.#generations.current;
    const upstream = Object.hasOwn(generation.config.upstreams, name) ? generation.config.upstreams[name] : undefined;
    const dir = upstream?.record?.dir;
    if (!upstream || dir === undefined) return undefined;
    const running = this.#running.get(name);
    if (running) return running;
    const cached = this.#cache.get(name);
    if (!fresh && cached && cached.generation === generation && this.#now() - cached.checkedAt < RECHECK_MS) return Promise.resolve(cached.view);
    const job = (async (): Promise<LearnView> => {
      const sig = await signature(dir, name);
      if (cached && cached.generation === generation && cached.signature === sig) {
        this.#cache.set(name, { ...cached, checkedAt: this.#now() });
        return cached.view;
      }
      const view = await learn(upstream, dir, generation.policies.get(name), generation.config.defaults);
      this.#cache.set(name, { signature: sig, generation, checkedAt: this.#now(), view });
      return view;
    })().finally(() => this.#running.delete(name));
    this.#running.set(name, job);
    return job;
  }
}
