export { limitedFetch } from "./limited-fetch.js";
export { ADMITTED_HEADER } from "./admitted-header.js";
export type { Admitter, PickAdmitter } from "./admitter.js";
export type { FetchOptions, FetchRequestInfo } from "./options.js";
