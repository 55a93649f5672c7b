// Every run's value for a results table, in the order measured: a summary
// (median, best, mean) beside it then hides no run, and a reader can see
// how far the runs spread on this shared machine.
export const everyRun = (values, digits = 1) => values.map((v) => v.toFixed(digits)).join(', ');

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// The medians of `values` (one a request, in the order measured) cut into
// `rounds` consecutive rounds of equal size (the last takes what is left):
// a baseline measured request by request as the rounds quiet.mjs's verdict
// compares, since single requests spread far more than rounds of them.
export function roundMedians(values, rounds = 3) {
  const size = Math.max(1, Math.floor(values.length / rounds));
  const out = [];
  for (let r = 0; r < rounds && r * size < values.length; r++) {
    out.push(median(values.slice(r * size, r === rounds - 1 ? values.length : (r + 1) * size)));
  }
  return out;
}
