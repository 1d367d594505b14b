/** Markdown output for the benchmark results. */

/** Numbers right-aligned, text left-aligned. */
export type Align = "left" | "right";

export function markdownTable(
  header: readonly string[],
  align: readonly Align[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  const rule = align.map((a) => (a === "right" ? "---:" : "---"));
  return [line(header), line(rule), ...rows.map(line)].join("\n");
}

/** `1234567.8` -> `"1,234,568"`. */
export function whole(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** A ratio such as `"0.31x"`. */
export function ratio(n: number): string {
  return `${n.toFixed(n < 10 ? 2 : 1)}x`;
}
