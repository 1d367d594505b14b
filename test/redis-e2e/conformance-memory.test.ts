import { describe } from "vitest";
import { memoryBackend } from "./backends.js";
import { conformance } from "./conformance.js";

describe("conformance on real time: memory store", () => conformance(memoryBackend()));
