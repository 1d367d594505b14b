import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf } from "./anchors.js";
import { ROOT } from "./snippets.js";

// Provider facts cite their source, and a reader of the package has the repository, not the notes it was
// written from: a comment in src/ cites docs/… (which has the sources), never a file outside the repository.

/** Every file under `dir`, as paths from the repository's root. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** Citations of a file outside the repository: `shared/…`, or a `providers.md` that is not docs/providers.md. */
function outsideCitations(text: string): string[] {
  return [...text.matchAll(/\bshared\/[\w./-]+|(?<![\w/])providers\.md/g)].map((m) => m[0]);
}

/** `docs/<page>.md#<anchor>` citations, as page and anchor. */
function docCitations(text: string): { page: string; anchor: string }[] {
  return [...text.matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)].map((m) => ({ page: m[1]!, anchor: m[2]! }));
}

const sources = filesUnder("src").map((file) => ({ file, text: readFileSync(path.join(ROOT, file), "utf8") }));

describe("citations in src/", () => {
  it("name no file outside the repository", () => {
    const found = sources.flatMap(({ file, text }) => outsideCitations(text).map((cited) => `${file}: ${cited}`));
    expect(found).toEqual([]);
  });

  it("name headings that docs/ has", () => {
    const dead = sources.flatMap(({ file, text }) =>
      docCitations(text)
        .filter(({ page, anchor }) => !anchorsOf(readFileSync(path.join(ROOT, "docs", page), "utf8")).has(anchor))
        .map(({ page, anchor }) => `${file}: docs/${page}#${anchor}`),
    );
    expect(dead).toEqual([]);
    expect(sources.flatMap(({ text }) => docCitations(text)).length).toBeGreaterThanOrEqual(10);
  });

  it("would catch the citations it forbids", () => {
    expect(outsideCitations("(see shared/providers.md) and (providers.md: 12ms)")).toEqual([
      "shared/providers.md",
      "providers.md",
    ]);
    expect(outsideCitations("(docs/providers.md#groq)")).toEqual([]);
  });
});
