/**
 * The fault suite's only source of randomness: sfc32 (a small, fast, well-tested 128-bit-state generator),
 * seeded from one 32-bit number, so a session is a pure function of its seed and can be replayed.
 * Separate streams (fork) keep one choice from shifting the others: a session's kind, its transport and
 * the rest of its plan each draw from their own.
 */
import { randomBytes } from 'node:crypto';

export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    // splitmix32 spreads a small seed over the state; sfc32 then warms up as its author recommends.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
      z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
      return (z ^ (z >>> 15)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** A short token of lowercase letters and digits. */
  token(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += '0123456789abcdefghijklmnopqrstuvwxyz'[this.int(0, 35)];
    return out;
  }
}

/** An independent stream for one purpose (`salt`) of the session seeded `seed`. */
export function stream(seed: number, salt: number): Rng {
  return new Rng((seed ^ Math.imul(salt, 0x85ebca6b)) >>> 0);
}

/** A fresh seed from the system's randomness (printed, so the run can be replayed). */
export function freshSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}
