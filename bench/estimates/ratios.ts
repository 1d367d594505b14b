import { countTokens } from "gpt-tokenizer";
import { textTokens } from "../../src/estimate/text.js";
import { corpus, type CorpusText } from "./corpus.js";

/** One category's figures: the default's and the simulator's counts against o200k, as ratios. */
export interface CategoryRatios {
  readonly category: CorpusText["category"];
  readonly texts: number;
  readonly chars: number;
  /** Characters per o200k token. */
  readonly charsPerToken: number;
  /** The default estimate over o200k: summed, and the lowest and highest text. */
  readonly defaultRatio: number;
  readonly defaultMin: number;
  readonly defaultMax: number;
  /** Texts the default counts below o200k. */
  readonly defaultUnder: number;
  /** The simulator's ceil(chars / 4) over o200k: summed, lowest, highest. */
  readonly simulatorRatio: number;
  readonly simulatorMin: number;
  readonly simulatorMax: number;
}

/** The default estimate and the simulator's count of every corpus text against `gpt-tokenizer` (o200k). */
export function measureRatios(): CategoryRatios[] {
  const texts = corpus();
  const categories = [...new Set(texts.map((t) => t.category))];
  return categories.map((category) => {
    const mine = texts.filter((t) => t.category === category);
    const rows = mine.map((t) => ({
      chars: t.text.length,
      exact: countTokens(t.text),
      estimate: textTokens(t.text),
      simulator: Math.ceil(t.text.length / 4),
    }));
    const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + pick(r), 0);
    const ratios = (pick: (row: (typeof rows)[number]) => number) => rows.map((r) => pick(r) / r.exact);
    const defaults = ratios((r) => r.estimate);
    const simulator = ratios((r) => r.simulator);
    return {
      category,
      texts: rows.length,
      chars: sum((r) => r.chars),
      charsPerToken: sum((r) => r.chars) / sum((r) => r.exact),
      defaultRatio: sum((r) => r.estimate) / sum((r) => r.exact),
      defaultMin: Math.min(...defaults),
      defaultMax: Math.max(...defaults),
      defaultUnder: defaults.filter((r) => r < 1).length,
      simulatorRatio: sum((r) => r.simulator) / sum((r) => r.exact),
      simulatorMin: Math.min(...simulator),
      simulatorMax: Math.max(...simulator),
    };
  });
}
