/**
 * Live views of the current config generation. Route modules capture their config objects once, at
 * registration (Fastify cannot add routes after ready); these views let them keep doing that while every
 * property read goes to whichever generation is current at that moment. A swap is one reference
 * assignment, so a single read never sees half of one generation and half of another.
 */
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import type { UpstreamPolicy } from '../policy/types.js';

/**
 * An object whose every property read goes to `read()`. The target is an empty, extensible object so the
 * Proxy invariants never pin a value (the generations themselves are deep-frozen).
 */
export function liveObject<T extends object>(read: () => T, wrap: (key: string | symbol, value: unknown) => unknown = (_k, v) => v): T {
  return new Proxy({} as T, {
    get: (_target, key) => wrap(key, Reflect.get(read(), key)),
    has: (_target, key) => Reflect.has(read(), key),
    ownKeys: () => Reflect.ownKeys(read()),
    getOwnPropertyDescriptor: (_target, key) => {
      const current = read();
      if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
      // Reported configurable: a Proxy may not claim a non-configurable property its target lacks.
      return { value: wrap(key, Reflect.get(current, key)), writable: false, enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}

/** The upstream `name` of the current generation (a served upstream stays in every generation). */
export function liveUpstream(read: () => GatewayConfig, name: string): UpstreamConfig {
  return liveObject(() => {
    const upstream = read().upstreams[name];
    if (!upstream) throw new Error(`upstream "${name}" vanished from the config generation`);
    return upstream;
  });
}

/** The current GatewayConfig; `upstreams` yields live views of each upstream. */
export function liveConfig(read: () => GatewayConfig): GatewayConfig {
  const views = new Map<string, UpstreamConfig>();
  const upstreamView = (name: string): UpstreamConfig => {
    let view = views.get(name);
    if (!view) views.set(name, (view = liveUpstream(read, name)));
    return view;
  };
  const upstreams = liveObject(
    () => read().upstreams,
    (key, value) => (typeof key === 'string' && value !== undefined ? upstreamView(key) : value),
  );
  return liveObject(read, (key, value) => (key === 'upstreams' ? upstreams : value));
}

/** The current generation's policies, as a read-only map. */
export function livePolicies(read: () => ReadonlyMap<string, UpstreamPolicy>): ReadonlyMap<string, UpstreamPolicy> {
  return {
    get: (key) => read().get(key),
    has: (key) => read().has(key),
    forEach: (fn, thisArg?: unknown) => read().forEach(fn, thisArg),
    get size() {
      return read().size;
    },
    entries: () => read().entries(),
    keys: () => read().keys(),
    values: () => read().values(),
    [Symbol.iterator]: () => read()[Symbol.iterator](),
  };
}
