export { simulate } from "./run.js";
export { parseWorkload } from "./workload.js";
export type { WorkloadCall } from "./workload.js";
export type { LatencyCall, SimulateBudget, SimulateOptions, SimulateProgress } from "./options.js";
export type {
  SimulationOutcome,
  SimulationResult,
  SimulationRun,
  SimulationSample,
  SimulationSummary,
} from "./types.js";
export { renderReport } from "./report/html.js";
export type { ReportOptions } from "./report/html.js";
