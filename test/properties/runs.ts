/**
 * How many cases a property runs: `normal`, or `FC_NUM_RUNS` from the
 * environment to try many more seeds locally (`FC_NUM_RUNS=20000 npx vitest run test/properties`).
 */
export function numRuns(normal: number): number {
  const asked = Number(process.env.FC_NUM_RUNS);
  return Number.isSafeInteger(asked) && asked > 0 ? asked : normal;
}
