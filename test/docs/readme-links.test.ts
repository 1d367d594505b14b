import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { anchor } from "./anchors.js";
import { ROOT } from "./snippets.js";

// The package ships README.md but not docs/ (nor examples/, bench/, CHANGELOG.md): a relative link
// would be dead in node_modules and on the registry's page. So every link is absolute or to a
// heading of the README itself, and the links into this repository name files it has.

const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { repository: { url: string } };
/** `https://github.com/llm-limiter/llm-limiter`, from package.json's repository. */
const REPOSITORY = manifest.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
const BLOB = `${REPOSITORY}/blob/main/`;

/** The targets of the inline links of `markdown`, outside code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "code");
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const readme = readFileSync(`${ROOT}README.md`, "utf8");
const targets = linkTargets(readme);

describe("the README's links, as the packed package shows them", () => {
  it("are all absolute or to one of its own headings", () => {
    expect(targets.length).toBeGreaterThan(20);
    expect(targets.filter((target) => !/^(https?:\/\/|#)/.test(target))).toEqual([]);
  });

  it("name files this repository has, on its main branch", () => {
    const ours = targets.filter((target) => target.startsWith(REPOSITORY));
    expect(ours.length).toBeGreaterThan(20);
    const missing = ours.filter((target) => {
      if (!target.startsWith(BLOB)) return true;
      const file = target.slice(BLOB.length).replace(/#.*$/, "");
      return !existsSync(`${ROOT}${file}`);
    });
    expect(missing).toEqual([]);
  });

  it("to its own headings land on one", () => {
    const headings = new Set(
      readme
        .replace(/^```[\s\S]*?^```/gm, "")
        .split("\n")
        .flatMap((line) => /^#{1,6}\s+(.*)$/.exec(line)?.[1] ?? [])
        .map(anchor),
    );
    const local = targets.filter((target) => target.startsWith("#"));
    expect(local.filter((target) => !headings.has(target.slice(1)))).toEqual([]);
  });
});

describe("finding links", () => {
  it("takes inline links, not code", () => {
    const markdown = "[a](docs/a.md) `[b](b.md)`\n```ts\n[c](c.md)\n```\n[d](https://x.dev/d#e)";
    expect(linkTargets(markdown)).toEqual(["docs/a.md", "https://x.dev/d#e"]);
  });

  it("anchors headings as GitHub does", () => {
    expect(anchor("The manual form: `run`")).toBe("the-manual-form-run");
  });
});
