// random.js - the page's one seeded generator and the normal numbers drawn
// from it (pure; no imports, so the engine worker can use it without the
// UI's strings). lib/math.js re-exports mulberry32 for the page's modules.

/** mulberry32: a small seeded generator, () -> [0, 1) (32-bit state; the same
 * sequence for a seed everywhere: the quiz's fixed orders, the property tests'
 * cases, the math check's draws). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Standard normal numbers N(0, 1) from `rand` (() -> [0, 1)) by the
 * Box–Muller transform: each pair of uniforms u1, u2 gives two,
 * √(−2 ln(1 − u1)) · (cos 2πu2, sin 2πu2), in that order (1 − u1 is in
 * (0, 1], so the logarithm is finite). Returns () -> number.
 */
export function normalSampler(rand) {
  let spare = null;
  return () => {
    if (spare !== null) { const z = spare; spare = null; return z; }
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const angle = 2 * Math.PI * rand();
    spare = r * Math.sin(angle);
    return r * Math.cos(angle);
  };
}
