/**
 * `llm-limiter/simulate`: a workload run through a `Limiter` against the provider simulator on virtual time
 * (what `npx llm-limiter simulate` runs), and its report as a page of HTML.
 */
export { simulate } from "./run.js";
export { parseWorkload } from "./workload.js";
export type { WorkloadCall } from "./workload.js";
export type { SimulateOptions } from "./options.js";
export type { SimulationResult, SimulationRun, SimulationSummary } from "./types.js";
export { renderReport } from "./report/html.js";
export type { ReportOptions } from "./report/html.js";
