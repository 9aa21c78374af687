import { logGamma, SeededRandom } from './random';

function moments(draw: () => number, n = 20_000): { mean: number; variance: number } {
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const x = draw();
    sum += x;
    squares += x * x;
  }
  const mean = sum / n;
  return { mean, variance: squares / n - mean * mean };
}

describe('SeededRandom', () => {
  it('is reproducible for a seed and differs between seeds', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const c = new SeededRandom(43);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(xs);
    expect(new SeededRandom(2 ** 40).nextUint32()).not.toBe(new SeededRandom(0).nextUint32());
  });

  it('draws uniforms in the open interval (0, 1)', () => {
    const rng = new SeededRandom(1);
    for (let i = 0; i < 10_000; i++) {
      const u = rng.uniform();
      expect(u > 0 && u < 1).toBe(true);
    }
    const m = moments(() => rng.uniform());
    expect(m.mean).toBeCloseTo(0.5, 2);
    expect(m.variance).toBeCloseTo(1 / 12, 2);
  });

  it('draws standard normals', () => {
    const rng = new SeededRandom(2);
    const m = moments(() => rng.normal());
    expect(m.mean).toBeCloseTo(0, 1);
    expect(m.variance).toBeCloseTo(1, 1);
  });

  it.each([0.3, 1, 5, 50])('draws Gamma(%f) with mean and variance equal to the shape', (shape) => {
    const rng = new SeededRandom(3);
    const m = moments(() => rng.gamma(shape), 50_000);
    expect(m.mean / shape).toBeCloseTo(1, 1);
    expect(Math.abs(m.variance / shape - 1)).toBeLessThan(0.1);
  });

  it('draws Gamma by mean and variance, and degenerates to the mean without variance', () => {
    const rng = new SeededRandom(4);
    const m = moments(() => rng.gammaMeanVar(10, 4));
    expect(m.mean).toBeCloseTo(10, 0);
    expect(m.variance).toBeCloseTo(4, 0);
    expect(rng.gammaMeanVar(7, 0)).toBe(7);
  });

  it.each([0.5, 5, 11.9, 12, 30, 1000])('draws Poisson(%f) with mean and variance λ', (lambda) => {
    const rng = new SeededRandom(5);
    const m = moments(() => rng.poisson(lambda));
    expect(m.mean / lambda).toBeCloseTo(1, 1);
    expect(m.variance / lambda).toBeCloseTo(1, 1);
  });

  it.each([
    [0.5, 4],
    [5, 0.5],
    [20, 10],
    [60, 2],
  ])('draws negative binomials with mean %f and shape %f (variance mean + mean²/shape)', (mean, shape) => {
    const rng = new SeededRandom(6);
    const m = moments(() => rng.negativeBinomial(mean, shape), 50_000);
    expect(m.mean / mean).toBeCloseTo(1, 1);
    expect(Math.abs(m.variance / (mean + (mean * mean) / shape) - 1)).toBeLessThan(0.1);
  });

  it('computes ln Γ', () => {
    expect(logGamma(1)).toBe(0);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 10);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 10);
  });
});
