// Every run's value for a results table, in the order measured: a summary
// (median, best, mean) beside it then hides no run, and a reader can see
// how far the runs spread on this shared machine.
export const everyRun = (values, digits = 1) => values.map((v) => v.toFixed(digits)).join(', ');
