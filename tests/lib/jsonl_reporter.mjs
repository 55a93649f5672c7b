// A node:test reporter that writes one JSON line per test as it ends:
// {file, name: "suite › test", status: pass|fail|skip, ms, error}.
// scripts/node-tests.mjs reads it for the per-file times of `make test`,
// and `make soak` for the failure count per test.
export default async function* jsonlReporter(source) {
  const path = [];  // names of the suites around the current test, by nesting
  for await (const event of source) {
    const { data } = event;
    if (event.type === 'test:start') {
      path.length = data.nesting;
      path.push(data.name);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const suite = data.details?.type === 'suite';
    // A suite is written when it was skipped, or failed on its own (a hook),
    // not when it only passes on its tests' failures.
    if (suite && event.type === 'test:pass' && data.skip === undefined) continue;
    if (suite && data.details?.error?.failureType === 'subtestsFailed') continue;
    const name = [...path.slice(0, data.nesting), data.name].join(' › ');
    const status = event.type === 'test:fail' ? 'fail' : data.skip !== undefined || data.todo !== undefined ? 'skip' : 'pass';
    const error = status === 'fail' ? String(data.details?.error?.cause?.message ?? data.details?.error?.message ?? '').slice(0, 300) : undefined;
    yield `${JSON.stringify({ file: data.file, name, status, ms: Math.round(data.details?.duration_ms ?? 0), error })}\n`;
  }
}
