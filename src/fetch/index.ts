export { limitedFetch } from "./limited-fetch.js";
export { ADMITTED_HEADER, PRIORITY_HEADER, TENANT_HEADER } from "./call-headers.js";
export { LIMITER_ERROR_HEADER } from "./refusal.js";
export type { Admitter, PickAdmitter } from "./admitter.js";
export type { FetchOptions, FetchRequestInfo } from "./options.js";
