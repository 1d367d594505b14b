export { estimateRequest } from "./estimate-request.js";
export type { Endpoint, EstimateRequestOptions, ImageSize, RequestEstimate, Tokenizer } from "./types.js";
