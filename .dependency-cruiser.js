// @ts-check
/**
 * The dependency rule of src/ (`npm run check:deps`, in CI): each layer below says what its files may import, and
 * everything else is forbidden. Type-only imports count. Node built-ins are allowed everywhere; npm packages nowhere,
 * except type-only imports of the Redis clients from src/redis, the AI SDK from src/ai and @opentelemetry/api from
 * src/otel, and @sinonjs/fake-timers from src/simulate (loaded when a simulation runs). No import cycles at all.
 *
 * Paths are relative to where depcruise runs, so test/deps/dependency-rules.test.ts runs this same file on the
 * src/ trees under test/fixtures/deps/.
 */
import { URL, fileURLToPath } from "node:url";

/** The parts of src/ (regular expressions on the path from where depcruise runs), and how a violation names them. */
const parts = {
  pure: {
    path: "^src/core/(bucket|budget|limits|values|amounts|calendar)\\.ts$",
    shows: "src/core/{bucket,budget,limits,values,amounts,calendar}.ts",
  },
  core: { path: "^src/core/", shows: "src/core/**" },
  headers: { path: "^src/headers/", shows: "src/headers/**" },
  buckets: { path: "^src/buckets/", shows: "src/buckets/**" },
  store: { path: "^src/store/", shows: "src/store/**" },
  sync: { path: "^src/sync/", shows: "src/sync/**" },
  admission: { path: "^src/admission/", shows: "src/admission/**" },
  redis: { path: "^src/redis/", shows: "src/redis/**" },
  plan: { path: "^src/plan/", shows: "src/plan/**" },
  testingEntry: { path: "^src/testing/index\\.ts$", shows: "src/testing/index.ts" },
  ai: { path: "^src/ai/", shows: "src/ai/**" },
  events: { path: "^src/events/", shows: "src/events/**" },
  otel: { path: "^src/otel/", shows: "src/otel/**" },
  testing: { path: "^src/testing/", shows: "src/testing/**" },
  group: { path: "^src/group/", shows: "src/group/**" },
  simulate: { path: "^src/simulate/", shows: "src/simulate/**" },
  estimate: { path: "^src/estimate/", shows: "src/estimate/**" },
  fetch: { path: "^src/fetch/", shows: "src/fetch/**" },
  options: { path: "^src/options\\.ts$", shows: "src/options.ts" },
  facade: { path: "^src/[^/]+\\.ts$", shows: "src/*.ts" },
  src: { path: "^src/", shows: "anything under src/" },
  // Wherever node_modules is found: the fixtures resolve it from the project root.
  redisClients: { path: "(^|/)node_modules/(ioredis|redis|@redis/[^/]+)/", shows: "the Redis clients' types" },
  fakeTimers: { path: "(^|/)node_modules/@sinonjs/fake-timers/", shows: "@sinonjs/fake-timers" },
  aiSdk: { path: "(^|/)node_modules/ai/", shows: "the AI SDK's types" },
  otelApi: { path: "(^|/)node_modules/@opentelemetry/api/", shows: "@opentelemetry/api's types" },
};

/** @typedef {keyof typeof parts} Part */

/**
 * "X may import Y" (and node built-ins); all else is forbidden. A file belongs to the first layer that it matches.
 *
 * @type {[Part, Part[]][]}
 */
const layers = [
  ["pure", ["pure"]],
  ["headers", ["headers"]],
  // Events' payloads name the core's types; the core emits them.
  ["events", ["core", "headers", "events"]],
  ["core", ["core", "headers", "options", "events"]],
  ["buckets", ["core", "buckets"]],
  ["store", ["core", "store"]],
  ["sync", ["core", "headers", "buckets", "sync", "events"]],
  ["admission", ["core", "buckets", "store", "admission", "options", "events"]],
  ["redis", ["core", "store", "redis", "redisClients"]],
  // The planner reads durations (`6m0s`) as headers do.
  ["plan", ["core", "headers", "plan"]],
  // The entry point of llm-limiter/testing also exports simulate(); the simulator itself stays apart from the limiter.
  ["testingEntry", ["testing", "simulate"]],
  ["testing", ["core", "testing"]],
  // A group is made of limiters: it builds on the facade (limiter.ts, modes.ts); only index.ts imports it back.
  // It forwards its members' events (`group.on`), and splits a group store (src/store) among them: its `store`
  // option names the one users pass, src/redis's RedisGroupStore (a type: the group never builds one).
  [
    "group",
    ["core", "headers", "buckets", "store", "admission", "options", "facade", "fetch", "events", "group", "redis"],
  ],
  // simulate() drives a Limiter (the facade) against the simulator on fake timers (loaded when it runs, bundled
  // into the CLI); its CLI flags read as plan's do.
  ["simulate", ["simulate", "core", "testing", "facade", "plan", "fakeTimers"]],
  // Token estimates are pure functions of a request body.
  ["estimate", ["estimate"]],
  // The limited fetch admits through a Reservation's interface, never the Limiter itself (which builds it).
  ["fetch", ["core", "estimate", "options", "fetch"]],
  // The AI SDK middleware sits on the public surface: the Limiter, the core's types, the estimates; not admission.
  ["ai", ["ai", "facade", "group", "core", "estimate", "fetch", "aiSdk"]],
  // The limiter's types (src/limiter.ts) and its events; OpenTelemetry's API for its types only.
  ["otel", ["otel", "events", "facade", "otelApi"]],
  ["facade", ["src"]],
];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layers.map(
      /** @returns {import("dependency-cruiser").IRegularForbiddenRuleType} */
      ([from, mayImport], i) => ({
        name: `layer-${from}`,
        comment: `${parts[from].shows} may import only ${mayImport.map((to) => parts[to].shows).join(", ")}`,
        severity: "error",
        from: { path: parts[from].path, pathNot: layers.slice(0, i).map(([earlier]) => parts[earlier].path) },
        to: { pathNot: mayImport.map((to) => parts[to].path), dependencyTypesNot: ["core"] },
      }),
    ),
    {
      name: "redis-clients-type-only",
      comment: "src/redis may import the Redis clients (optional peers) for their types only",
      severity: "error",
      from: { path: parts.redis.path },
      to: { path: parts.redisClients.path, dependencyTypesNot: ["type-only", "type-import"] },
    },
    {
      name: "ai-sdk-type-only",
      comment: "src/ai may import the AI SDK (an optional peer) for its types only",
      severity: "error",
      from: { path: parts.ai.path },
      to: { path: parts.aiSdk.path, dependencyTypesNot: ["type-only", "type-import"] },
    },
    {
      name: "otel-api-type-only",
      comment: "src/otel may import @opentelemetry/api (an optional peer) for its types only",
      severity: "error",
      from: { path: parts.otel.path },
      to: { path: parts.otelApi.path, dependencyTypesNot: ["type-only", "type-import"] },
    },
    {
      name: "file-outside-layers",
      comment: "every file under src/ belongs to a layer of .dependency-cruiser.js: add its folder there",
      severity: "error",
      from: { path: parts.src.path, pathNot: layers.map(([layer]) => parts[layer].path) },
      to: { dependencyTypesNot: ["core"] },
    },
    {
      name: "no-circular",
      comment: "no import cycles, type-only imports included",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "every import resolves",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    // NodeNext resolution, so the `.js` specifiers resolve to the `.ts` files.
    tsConfig: { fileName: fileURLToPath(new URL("tsconfig.json", import.meta.url)) },
    doNotFollow: { path: ["(^|/)node_modules/", "^(test|bench|examples)/"] },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
