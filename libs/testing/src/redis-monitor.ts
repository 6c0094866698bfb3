import { connect } from 'node:net';

/** One command Redis ran, as MONITOR reports it: who sent it (`ip:port`, or `lua` inside a script) and its args. */
export interface MonitoredCommand {
  readonly source: string;
  readonly args: string[];
}

export interface RedisMonitor {
  /** Every command Redis ran since MONITOR was acknowledged, in order; grows until `stop()`. */
  readonly commands: MonitoredCommand[];
  stop(): Promise<void>;
}

/**
 * Starts MONITOR on a plain TCP connection of its own; resolves once Redis acknowledged it.
 * Not ioredis's monitor(): it marks its connection as monitoring only after the OK's promise settles, so a
 * monitored command that arrives in the same read as the OK is taken for a reply nobody asked for, and
 * monitor() fails ("Command queue state error"; seen in CI when another client's INFO came right after).
 */
export function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port || 6379) });
  const commands: MonitoredCommand[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const stop = async () => {
    socket.destroy();
    await closed;
  };
  return new Promise((resolve, reject) => {
    let buffered = '';
    let acknowledged = false;
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      const lines = buffered.split('\r\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (acknowledged) {
          const command = parseMonitorLine(line);
          if (command) commands.push(command);
        } else if (line === '+OK') {
          acknowledged = true;
          socket.off('error', fail);
          socket.on('error', () => undefined); // a reset after stop() or at Redis's exit ends the monitor, nothing more
          resolve({ commands, stop });
        } else {
          fail(new Error(`MONITOR refused: ${line}`));
        }
      }
    });
  });
}

/** `+1795574576.988700 [0 127.0.0.1:45340] "xadd" "key" ...`: each arg quoted, with C-style escapes. */
const LINE = /^\+\S+ \[\d+ ([^\]]+)\] (.*)$/;
const ARG = /"((?:[^"\\]|\\.)*)"/g;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };

function parseMonitorLine(line: string): MonitoredCommand | undefined {
  const match = LINE.exec(line);
  if (!match) return undefined;
  const args = [...(match[2] as string).matchAll(ARG)].map(([, quoted]) => unescapeArg(quoted as string));
  return { source: match[1] as string, args };
}

function unescapeArg(quoted: string): string {
  const latin1 = quoted.replace(/\\(x[0-9a-fA-F]{2}|[\s\S])/g, (_, escape: string) =>
    escape.length === 3 ? String.fromCharCode(parseInt(escape.slice(1), 16)) : (ESCAPES[escape] ?? escape),
  );
  // Redis escapes bytes, not characters: read back as bytes, decoded as the UTF-8 they were sent as.
  return Buffer.from(latin1, 'latin1').toString('utf8');
}
