/**
 * A self-hosted server's 429 when its calls in flight are at capacity, in Text Generation Inference's shape.
 * @inline
 */
export interface OverloadedErrorBody {
  /** `"Model is overloaded"`. */
  error: string;
  /** `"overloaded"`. */
  error_type: string;
}

/** The body TGI's router sends when `--max-concurrent-requests` calls are in flight (docs/providers.md). */
export function overloadedBody(): OverloadedErrorBody {
  return { error: "Model is overloaded", error_type: "overloaded" };
}
