/** Types of redis-parser (ioredis' RESP parser; the package ships none), the part swc uses. */
declare module 'redis-parser' {
  interface ParserOptions {
    /** Called once per complete top-level reply. */
    returnReply(reply: unknown): void;
    /** Called once per top-level error reply (errors inside arrays are elements). */
    returnError(error: Error): void;
    /** Called when the bytes are not RESP. */
    returnFatalError?(error: Error): void;
  }
  class RedisParser {
    constructor(options: ParserOptions);
    /** Parses a chunk; replies split across chunks complete with the next one. */
    execute(bytes: Buffer): void;
  }
  export = RedisParser;
}
