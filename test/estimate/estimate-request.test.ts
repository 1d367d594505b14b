import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { estimateRequest } from "../../src/index.js";

/** Base64 of an image header stating `width` × `height`. */
function pngData(width: number, height: number): string {
  const header = Buffer.alloc(33);
  Buffer.from("\x89PNG\r\n\x1a\n", "latin1").copy(header);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header.toString("base64");
}

function jpegData(width: number, height: number): string {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...Buffer.from("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof0, 0x11, 1, 3, 0x11, 1, 0, 0, 0, 0]).toString("base64");
}

function gifData(width: number, height: number): string {
  return Buffer.from([...Buffer.from("GIF89a"), width & 255, width >> 8, height & 255, height >> 8, 0, 0, 0]).toString(
    "base64",
  );
}

function webpData(width: number, height: number): string {
  const header = Buffer.alloc(30);
  header.write("RIFF", 0, "latin1");
  header.write("WEBPVP8X", 8, "latin1");
  header.writeUIntLE(width - 1, 24, 3);
  header.writeUIntLE(height - 1, 27, 3);
  return header.toString("base64");
}

/** The input tokens one image part adds to an OpenAI chat request. */
function openAIImage(part: object, model = "gpt-4o"): number {
  const body = (content: unknown[]) => ({ model, messages: [{ role: "user", content }], max_tokens: 1 });
  return estimateRequest(body([{ type: "image_url", image_url: part }])).input - estimateRequest(body([])).input;
}

function anthropicImage(source: object): number {
  const body = (content: unknown[]) => ({
    model: "claude-sonnet-4-5",
    max_tokens: 1,
    system: "",
    messages: [{ role: "user", content }],
  });
  return estimateRequest(body([{ type: "image", source }])).input - estimateRequest(body([])).input;
}

describe("estimateRequest: images", () => {
  const png = (w: number, h: number) => `data:image/png;base64,${pngData(w, h)}`;

  // The examples of https://platform.openai.com/docs/guides/images-vision#calculating-costs
  it("counts OpenAI images by the tile rule", () => {
    expect(openAIImage({ url: png(1024, 1024), detail: "high" })).toBe(765);
    expect(openAIImage({ url: png(2048, 4096), detail: "high" })).toBe(1105);
    expect(openAIImage({ url: png(4096, 8192), detail: "low" })).toBe(85);
    expect(openAIImage({ url: png(500, 500) })).toBe(255);
    expect(openAIImage({ url: `data:image/jpeg;base64,${jpegData(1024, 1024)}` })).toBe(765);
    expect(openAIImage({ url: `data:image/gif;base64,${gifData(513, 500)}` })).toBe(425);
    expect(openAIImage({ url: `data:image/webp;base64,${webpData(512, 512)}` })).toBe(255);
    expect(openAIImage({ url: png(1024, 1024), detail: "low" }, "gpt-4o-mini")).toBe(2833);
  });

  it("charges an image behind a URL at the configured size, else the most the rule charges", () => {
    expect(openAIImage({ url: "https://example.com/cat.png" })).toBe(85 + 8 * 170);
    const body = {
      model: "gpt-4o",
      max_tokens: 1,
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }],
    };
    const small = estimateRequest(body, { imageSize: { width: 512, height: 512 } });
    expect(small.input).toBe(estimateRequest(body).input - (85 + 8 * 170) + 255);
  });

  // https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
  it("counts Anthropic images as width × height / 750 after its resizing", () => {
    expect(anthropicImage({ type: "base64", media_type: "image/png", data: pngData(1000, 1000) })).toBe(1334);
    expect(anthropicImage({ type: "base64", media_type: "image/png", data: pngData(200, 200) })).toBe(54);
    expect(anthropicImage({ type: "base64", media_type: "image/png", data: pngData(4000, 3000) })).toBe(1600);
    expect(anthropicImage({ type: "url", url: "https://example.com/cat.png" })).toBe(1600);
  });
});

describe("estimateRequest: output reservations and endpoints", () => {
  const messages = [{ role: "user", content: "Hello" }];

  it("reserves max_completion_tokens over max_tokens, times n, else defaultMaxTokens", () => {
    expect(estimateRequest({ model: "gpt-4o", messages, max_tokens: 100, max_completion_tokens: 300 }).output).toBe(
      300,
    );
    expect(estimateRequest({ model: "gpt-4o", messages, max_tokens: 100, n: 3 }).output).toBe(300);
    expect(estimateRequest({ model: "gpt-4o", messages }).output).toBe(4096);
    expect(estimateRequest({ model: "gpt-4o", messages }, { defaultMaxTokens: 512 }).output).toBe(512);
    expect(estimateRequest({ model: "gpt-4o", input: "Hi", max_output_tokens: 64 }).output).toBe(64);
    expect(estimateRequest({ model: "text-embedding-3-large", input: ["a", "b"] })).toEqual({ input: 2, output: 0 });
    expect(estimateRequest({ model: "text-embedding-3-large", input: [[1, 2, 3], [4]] }).input).toBe(4);
  });

  it("reads the shape from the body: a top-level system means Anthropic's", () => {
    const openAI = { model: "m", max_tokens: 10, messages: [{ role: "system", content: "Be brief." }, ...messages] };
    const anthropic = { model: "m", max_tokens: 10, system: "Be brief.", messages };
    expect(estimateRequest(anthropic)).toEqual(estimateRequest(anthropic, { endpoint: "messages" }));
    expect(estimateRequest(openAI)).toEqual(estimateRequest(openAI, { endpoint: "chat.completions" }));
  });

  it("counts tool schemas, and Anthropic's tool-use system prompt", () => {
    const tool = { name: "lookup", description: "Look a word up.", input_schema: { type: "object" } };
    const plain = { model: "claude-sonnet-4-5", max_tokens: 10, messages };
    const withTool = estimateRequest({ ...plain, tools: [tool] }, { endpoint: "messages" }).input;
    expect(withTool - estimateRequest(plain, { endpoint: "messages" }).input).toBeGreaterThan(346);
  });

  it("uses a plugged-in tokenizer for every text", () => {
    const body = { model: "gpt-4o", max_tokens: 1, messages: [{ role: "user", content: "The quick brown fox." }] };
    // 3 priming + 3 per message + the role + the content, as OpenAI's chat format counts.
    expect(estimateRequest(body, { tokenizer: countTokens }).input).toBe(
      3 + 3 + 1 + countTokens("The quick brown fox."),
    );
    expect(estimateRequest(body, { tokenizer: () => 0 }).input).toBe(6);
  });

  it("refuses what it cannot read with a TypeError or RangeError", () => {
    expect(() => estimateRequest("{}")).toThrow(TypeError);
    expect(() => estimateRequest([])).toThrow(TypeError);
    expect(() => estimateRequest({}, { endpoint: "completions" as never })).toThrow(TypeError);
    expect(() => estimateRequest({}, { tokenizer: "o200k" as never })).toThrow(TypeError);
    expect(() => estimateRequest({ messages }, { tokenizer: () => Number.NaN })).toThrow(TypeError);
    expect(() => estimateRequest({}, { defaultMaxTokens: 1.5 })).toThrow(RangeError);
    expect(() => estimateRequest({}, { imageSize: { width: -1, height: 2 } })).toThrow(RangeError);
  });
});
