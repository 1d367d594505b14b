import type { Completion } from "./completion.js";
import type { EmbeddingsAsked } from "./requests.js";

/** Token counts of an embeddings request, in OpenAI's shape: input only. */
export interface OpenAIEmbeddingsUsage {
  /** Tokens in the inputs. */
  prompt_tokens: number;
  /** Tokens used in all: the same as `prompt_tokens`, as embeddings generate none. */
  total_tokens: number;
}

/** A `POST /v1/embeddings` body. */
export interface OpenAIEmbeddingList {
  /** The object type, always `"list"`. */
  object: "list";
  /** One embedding per input, in input order. */
  data: {
    /** The object type, always `"embedding"`. */
    object: "embedding";
    /** The input's position, from 0. */
    index: number;
    /**
     * The vector: numbers, or base64 of little-endian float32s for `encoding_format: "base64"`.
     * The simulator's is a unit vector with every component equal.
     */
    embedding: number[] | string;
  }[];
  /** The model that answered: here the request's `model`, echoed. */
  model: string;
  /** Tokens the request used. */
  usage: OpenAIEmbeddingsUsage;
}

/** The embeddings body: one equal-component unit vector per input, encoded as the request asked. */
export function embeddingsBody(completion: Completion, asked: EmbeddingsAsked): OpenAIEmbeddingList {
  const vector = new Array<number>(asked.dimensions).fill(Math.fround(1 / Math.sqrt(asked.dimensions)));
  const embedding = asked.base64 ? float32Base64(vector) : vector;
  return {
    object: "list",
    data: Array.from({ length: asked.inputs }, (_, index) => ({ object: "embedding", index, embedding })),
    model: completion.model,
    usage: { prompt_tokens: completion.promptTokens, total_tokens: completion.promptTokens },
  };
}

function float32Base64(vector: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  const bytes = new Uint8Array(view.buffer);
  // btoa takes one character per byte; every runtime has it, Buffer only Node's kin.
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
