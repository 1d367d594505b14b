import { connect } from "node:net";
import { Redis } from "ioredis";
import { startRedisServer, type RedisServer } from "../../examples/shared/redis-server.js";
import { delay } from "../../src/testing/delay.js";

/** A throwaway redis-server that can crash (SIGKILL) and come back on the same port. */
export interface KillableRedis {
  readonly url: string;
  /** SIGKILLs the server and waits until its port refuses connections. */
  kill(): Promise<void>;
  /** Starts an empty server on the same port (no persistence: the state is gone). */
  restart(): Promise<void>;
  /** Stops whatever runs now. */
  stop(): Promise<void>;
}

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

async function pidOf(url: string): Promise<number> {
  const raw = new Redis(url);
  try {
    const info = await raw.info("server");
    return Number(/process_id:(\d+)/.exec(info)![1]);
  } finally {
    raw.disconnect();
  }
}

export async function killableRedis(): Promise<KillableRedis> {
  const servers: RedisServer[] = [await startRedisServer()];
  const { port, url } = servers[0]!;
  return {
    url,
    async kill() {
      process.kill(await pidOf(url), "SIGKILL");
      while (!(await refused(port))) await delay(10);
    },
    async restart() {
      servers.push(await startRedisServer(port));
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}
