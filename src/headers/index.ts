export { parseRateLimitHeaders } from "./parse.js";
export type {
  HeaderInput,
  HeaderValue,
  ParseOptions,
  ProviderName,
  RateLimitView,
  ReportedDimension,
  ReportedUnit,
  WindowSource,
} from "./types.js";
