// Prompts that tests of the engine's prompt cache send. They need text that
// is the same on every run (so a test is repeatable) and different from one
// conversation to the next (so one conversation never finds another's prefix
// in the cache and counts it as its own).

// A distinct opening of `words` words (about as many tokens on the synthetic
// models) for conversation `n`: a Lehmer generator seeded by `n` picks each
// word from a vocabulary of 997.
export function opening(n, words) {
  const out = [];
  let x = n * 7919 + 1;
  for (let i = 0; i < words; i++) {
    x = (x * 48271) % 2147483647;
    out.push(`w${x % 997}`);
  }
  return out.join(' ');
}
