import { describe, expect, it } from "vitest";
import { parseSimulateArgs } from "../../src/simulate/args.js";

describe("parseSimulateArgs", () => {
  it("reads --priorities as the classes, the most urgent first", () => {
    const command = parseSimulateArgs(["simulate", "w.jsonl", "--rpm", "10", "--priorities", "interactive, batch"]);
    expect(command).toMatchObject({ help: false, options: { rpm: 10, priorities: ["interactive", "batch"] } });
    expect(parseSimulateArgs(["simulate", "w.jsonl", "--rpm", "10"])).not.toHaveProperty("options.priorities");
  });
});
