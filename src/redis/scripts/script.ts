/** A Lua script and the SHA1 Redis knows it by (pinned; a test checks it against `SCRIPT LOAD`). */
export interface Script {
  readonly source: string;
  readonly sha1: string;
}
