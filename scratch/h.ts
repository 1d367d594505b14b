import { parseRateLimitHeaders } from "../src/index.js";
import { createProvider } from "../src/testing/index.js";
const p = createProvider({ rpm: 2, tpm: 100_000 });
await p.call({ prompt: 1, maxTokens: 1 }); await p.call({ prompt: 1, maxTokens: 1 });
const r = await p.call({ prompt: 1, maxTokens: 1 });
console.log(r.status, r.headers, parseRateLimitHeaders(r.headers).provider);
