import { scanDecimal } from "./numbers.js";

/** A structured-field bare item. Strings, tokens and byte sequences are all text here. */
export type BareItem = string | number | boolean;

/** One member of a structured-field List: an item and its parameters. */
export interface ListMember {
  value: BareItem;
  params: ReadonlyMap<string, BareItem>;
}

/** More members or parameters than this is no real policy list: the field is ignored. */
const MAX_MEMBERS = 32;
const MAX_PARAMS = 16;

function isLcAlpha(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isAlpha(c: number): boolean {
  return isLcAlpha(c | 0x20);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
/** RFC 9110 tchar, plus the `:` and `/` that RFC 8941 tokens allow. */
function isTokenChar(c: number): boolean {
  return isAlpha(c) || isDigit(c) || "!#$%&'*+-.^_`|~:/".includes(String.fromCharCode(c));
}
function isKeyChar(c: number): boolean {
  return isLcAlpha(c) || isDigit(c) || c === 95 /* _ */ || c === 45 /* - */ || c === 46 /* . */ || c === 42; /* * */
}

/**
 * A one-pass reader of RFC 8941 Lists as the IETF RateLimit fields use them
 * (`"burst";q=100;w=60, "daily";q=1000;w=86400`). Inner lists are not supported. Any
 * syntax error fails the whole field, as RFC 8941 requires and the draft repeats
 * ("malformed fields must be ignored").
 */
class Reader {
  i = 0;
  constructor(private readonly s: string) {}

  private code(): number {
    return this.i < this.s.length ? this.s.charCodeAt(this.i) : -1;
  }

  private skip(tabsToo: boolean): void {
    while (this.code() === 32 || (tabsToo && this.code() === 9)) this.i++;
  }

  list(): ListMember[] | undefined {
    const members: ListMember[] = [];
    this.skip(false);
    while (this.i < this.s.length) {
      const member = this.member();
      if (member === undefined || members.length === MAX_MEMBERS) return undefined;
      members.push(member);
      this.skip(true);
      if (this.i === this.s.length) return members;
      if (this.code() !== 44 /* , */) return undefined;
      this.i++;
      this.skip(true);
      if (this.i === this.s.length) return undefined; // trailing comma
    }
    return members;
  }

  private member(): ListMember | undefined {
    const value = this.bareItem();
    if (value === undefined) return undefined;
    const params = new Map<string, BareItem>();
    for (let read = 0; this.code() === 59 /* ; */; read++) {
      this.i++;
      this.skip(false);
      const key = this.key();
      if (key === undefined || read === MAX_PARAMS) return undefined;
      let param: BareItem | undefined = true;
      if (this.code() === 61 /* = */) {
        this.i++;
        param = this.bareItem();
        if (param === undefined) return undefined;
      }
      params.set(key, param);
    }
    return { value, params };
  }

  private key(): string | undefined {
    const start = this.i;
    const first = this.code();
    if (!isLcAlpha(first) && first !== 42) return undefined;
    while (isKeyChar(this.code())) this.i++;
    return this.s.slice(start, this.i);
  }

  private bareItem(): BareItem | undefined {
    const c = this.code();
    if (c === 45 /* - */ || isDigit(c)) return this.number();
    if (c === 34 /* " */) return this.string();
    if (c === 42 /* * */ || isAlpha(c)) return this.token();
    if (c === 58 /* : */) return this.bytes();
    if (c === 63 /* ? */) return this.boolean();
    return undefined;
  }

  private number(): number | undefined {
    const negative = this.code() === 45;
    if (negative) this.i++;
    const d = scanDecimal(this.s, this.i);
    if (d === undefined) return undefined;
    this.i = d.end;
    return negative ? -d.value : d.value;
  }

  private string(): string | undefined {
    let out = "";
    for (this.i++; this.i < this.s.length; this.i++) {
      const c = this.s.charCodeAt(this.i);
      if (c === 34) {
        this.i++;
        return out;
      }
      if (c === 92 /* \ */) {
        const next = this.s.charCodeAt(++this.i);
        if (next !== 34 && next !== 92) return undefined;
        out += String.fromCharCode(next);
      } else if (c < 0x20 || c > 0x7e) {
        return undefined;
      } else {
        out += String.fromCharCode(c);
      }
    }
    return undefined; // unterminated
  }

  private token(): string {
    const start = this.i;
    while (isTokenChar(this.code())) this.i++;
    return this.s.slice(start, this.i);
  }

  private bytes(): string | undefined {
    const end = this.s.indexOf(":", this.i + 1);
    if (end < 0) return undefined;
    const text = this.s.slice(this.i + 1, end);
    this.i = end + 1;
    return text;
  }

  private boolean(): boolean | undefined {
    const v = this.s[this.i + 1];
    if (v !== "0" && v !== "1") return undefined;
    this.i += 2;
    return v === "1";
  }
}

/** An RFC 8941 List, or `undefined` when the field is malformed or absurdly long. */
export function parseList(field: string): ListMember[] | undefined {
  return new Reader(field).list();
}
