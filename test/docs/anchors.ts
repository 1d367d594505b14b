/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings, outside code blocks. */
export function anchorsOf(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchor(m[1]!.trim())));
}
