import type { Endpoint } from "./types.js";

/**
 * The endpoint a URL's path names, or `undefined` for one whose body is not estimated. The path's end
 * decides, so the OpenAI-compatible prefixes (Groq's `/openai/v1`, OpenRouter's `/api/v1`, Azure's
 * `/openai/deployments/{name}`) all read as OpenAI's.
 */
export function endpointOfUrl(url: URL): Endpoint | undefined {
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/chat/completions")) return "chat.completions";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/embeddings")) return "embeddings";
  // Not `/messages/count_tokens` or `/messages/batches`: they are metered apart.
  if (path.endsWith("/messages")) return "messages";
  return undefined;
}

/** Azure OpenAI names the model's deployment in the path (`/openai/deployments/{name}/...`), not in the body. */
export function deploymentOfUrl(url: URL): string | undefined {
  const match = /\/openai\/deployments\/([^/]+)\//.exec(url.pathname);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/** The endpoint a body's shape suggests, when no URL says it (see `EstimateRequestOptions.endpoint`). */
export function endpointOfBody(body: Record<string, unknown>): Endpoint {
  if (Array.isArray(body.messages)) {
    return body.system !== undefined || body.messages.some(hasAnthropicBlock) ? "messages" : "chat.completions";
  }
  if (body.input !== undefined && typeof body.model === "string" && /embed/i.test(body.model)) return "embeddings";
  return "responses";
}

/** Content blocks only Anthropic's Messages API has: `image` with a `source`, `tool_use`, `tool_result`. */
function hasAnthropicBlock(message: unknown): boolean {
  const content = (message as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return false;
  return content.some((block: { type?: unknown } | null) => {
    const type = block?.type;
    return type === "tool_use" || type === "tool_result" || (type === "image" && "source" in block!);
  });
}
