/**
 * A small, fast, seeded pseudo-random generator and the samplers the Monte Carlo forecast
 * and the guardrail workload generator need. `core/` never calls `Math.random()`: whoever
 * wants randomness passes a seed, and the same seed gives the same numbers on every machine.
 *
 * Generator: xoshiro128** 1.1 (Blackman & Vigna, public domain), 32-bit state words, so it
 * runs on `imul` without BigInt. Seeding expands the caller's number with splitmix32.
 *
 * @example
 * const rng = new SeededRandom(42);
 * rng.uniform(); // always the same first number for seed 42
 * rng.poisson(3.5); // Poisson draw, exact for every mean
 */

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { abs, exp, floor, imul, log, pow, sqrt } = Math;

const TWO_POW_32 = 4294967296;

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let t = state.s ^ (state.s >>> 16);
  t = imul(t, 0x21f0aaad);
  t ^= t >>> 15;
  t = imul(t, 0x735a2d97);
  t ^= t >>> 15;
  return t >>> 0;
}

/** Stirling series for ln Γ(x), as in NumPy's `random_loggam` (accurate to ~1e-15). */
export function logGamma(x: number): number {
  if (x === 1 || x === 2) return 0;
  const coefficients = [
    8.333333333333333e-2, -2.777777777777778e-3, 7.936507936507937e-4, -5.952380952380952e-4,
    8.417508417508418e-4, -1.917526917526918e-3, 6.41025641025641e-3, -2.955065359477124e-2,
    1.796443723688307e-1, -1.3924322169059,
  ];
  const n = x < 7 ? floor(7 - x) : 0;
  let x0 = x + n;
  const x2 = 1 / (x0 * x0);
  let gl0 = coefficients[9] as number;
  for (let k = 8; k >= 0; k--) gl0 = gl0 * x2 + (coefficients[k] as number);
  let gl = gl0 / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * log(x0) - x0;
  for (let k = 1; k <= n; k++) {
    gl -= log(x0 - 1);
    x0 -= 1;
  }
  return gl;
}

/** Seeded xoshiro128** generator with uniform, normal, gamma, Poisson and log-normal samplers. */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal = 0;
  private hasSpare = false;

  /** @param seed any finite number; integers up to 2^53 are distinguished exactly. */
  constructor(seed: number) {
    const lo = seed >>> 0;
    const hi = floor(abs(seed) / TWO_POW_32) >>> 0;
    const mix = { s: lo ^ imul(hi, 0x85ebca6b) ^ (seed < 0 ? 0x5bd1e995 : 0) };
    this.a = splitmix32(mix);
    this.b = splitmix32(mix);
    this.c = splitmix32(mix);
    this.d = splitmix32(mix);
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** Next 32-bit unsigned integer. */
  nextUint32(): number {
    const b = this.b;
    const r = imul(b, 5);
    const result = imul((r << 7) | (r >>> 25), 9) >>> 0;
    const t = b << 9;
    this.c ^= this.a;
    this.d ^= b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = (this.d << 11) | (this.d >>> 21);
    return result;
  }

  /** Uniform on the open interval (0, 1); never exactly 0, so `log(u)` is finite. */
  uniform(): number {
    return (this.nextUint32() + 0.5) / TWO_POW_32;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return floor(this.uniform() * n);
  }

  /** Uniform number in [lo, hi). */
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.uniform();
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.uniform() < p;
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Standard normal (Marsaglia polar method; the second value of each pair is kept). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spareNormal;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.uniform() - 1;
      v = 2 * this.uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = sqrt((-2 * log(s)) / s);
    this.spareNormal = v * f;
    this.hasSpare = true;
    return u * f;
  }

  /** Log-normal with the given log-mean and log-standard-deviation. */
  logNormal(mu: number, sigma: number): number {
    return exp(mu + sigma * this.normal());
  }

  /** Exponential with mean 1. */
  exponential(): number {
    return -log(this.uniform());
  }

  /** Gamma(shape, scale 1) by Marsaglia & Tsang (2000); shapes below 1 use the U^(1/k) boost. */
  gamma(shape: number): number {
    if (!(shape > 0)) return 0;
    if (shape < 1) return this.gamma(shape + 1) * pow(this.uniform(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniform();
      const x2 = x * x;
      if (u < 1 - 0.0331 * x2 * x2) return d * v;
      if (log(u) < 0.5 * x2 + d * (1 - v + log(v))) return d * v;
    }
  }

  /**
   * Gamma with the given mean and variance (moment-matched); degenerates to the mean when
   * the variance is 0. Used for day-level multipliers and for sums of many call costs.
   */
  gammaMeanVar(mean: number, variance: number): number {
    if (!(mean > 0)) return 0;
    if (!(variance > 0)) return mean;
    const shape = (mean * mean) / variance;
    return this.gamma(shape) * (variance / mean);
  }

  /**
   * Negative binomial with the given mean and shape r (a Poisson whose mean is Gamma-distributed
   * with shape r: variance mean + mean²/r). Inversion for small means (one uniform, one pow),
   * Gamma–Poisson otherwise.
   */
  negativeBinomial(mean: number, shape: number): number {
    if (!(mean > 0)) return 0;
    if (!(shape > 0) || shape > 1e12) return this.poisson(mean);
    if (mean >= 30) return this.poisson((this.gamma(shape) * mean) / shape);
    const q = mean / (mean + shape);
    return this.negativeBinomialByInversion(pow(1 - q, shape), q, shape);
  }

  /**
   * Negative binomial by inversion from its constants: P(0) = p0 = (1 − q)^r and
   * q = mean / (mean + r). For callers that draw many times with the same constants.
   */
  negativeBinomialByInversion(p0: number, q: number, r: number): number {
    const u = this.uniform();
    let p = p0;
    let cdf = p;
    let k = 0;
    while (u > cdf && k < 1000) {
      p *= ((r + k) / (k + 1)) * q;
      cdf += p;
      k++;
    }
    return k;
  }

  /**
   * Poisson draw, exact for every mean: inversion below 12, otherwise PTRS
   * (Hörmann 1993, "The transformed rejection method for generating Poisson random variables").
   */
  poisson(lambda: number): number {
    if (!(lambda > 0)) return 0;
    if (lambda < 12) {
      // Inversion by sequential search: one uniform, one exp.
      const u = this.uniform();
      let p = exp(-lambda);
      let cdf = p;
      let k = 0;
      while (u > cdf && k < 200) {
        k++;
        p *= lambda / k;
        cdf += p;
      }
      return k;
    }
    const slam = sqrt(lambda);
    const loglam = log(lambda);
    const b = 0.931 + 2.53 * slam;
    const a = -0.059 + 0.02483 * b;
    const invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const u = this.uniform() - 0.5;
      const v = this.uniform();
      const us = 0.5 - abs(u);
      const k = floor(((2 * a) / us + b) * u + lambda + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lambda + k * loglam - logGamma(k + 1)) {
        return k;
      }
    }
  }
}
