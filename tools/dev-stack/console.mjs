// What `npm start` shows in the terminal. The apps always log JSON lines (production logging is the same);
// here those lines go to one file per app under data/logs/, and the terminal gets short progress lines, one
// line per app when it is ready, and the apps' error lines. LOG_FORMAT=json puts every JSON line on the
// terminal too, as before.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';

export const LOG_FORMATS = ['console', 'json'];
/** Where the logs of one `npm start` go, relative to the repository (the data directory the apps use too). */
export const LOG_DIR = 'data/logs';
const SETUP_LOG = 'setup.log';
/** pino's level labels worth a person's attention while the stack runs. */
const SHOWN_LEVELS = new Set(['error', 'fatal']);

/** Reads LOG_FORMAT; an unknown value is refused with a message naming the variable. */
export function logFormatFrom(env) {
  const format = env.LOG_FORMAT?.trim() || 'console';
  if (!LOG_FORMATS.includes(format)) {
    throw new Error(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got ${JSON.stringify(env.LOG_FORMAT)})`);
  }
  return format;
}

/** The terminal of one `npm start`: set-up steps, app output, ready lines. Every log is truncated per run. */
export function createConsole({ root, env: given = process.env, out = process.stdout, err = process.stderr }) {
  // Run under `nx` (its test), the steps' nested nx builds would be taken for a recursive loop of the outer run's.
  const env = { ...given };
  delete env.NX_INVOCATION_ROOT_PID;
  let format;
  try {
    format = logFormatFrom(env);
  } catch (error) {
    err.write(`✖ ${error.message}\n`);
    process.exit(1);
  }
  const logDir = join(root, LOG_DIR);
  mkdirSync(logDir, { recursive: true });
  const shown = (file) => relative(root, join(logDir, file));
  const setupLog = join(logDir, SETUP_LOG);
  closeSync(openSync(setupLog, 'w'));
  const started = Date.now();
  const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
  // In a terminal a step's "…" line is replaced by its outcome, unless another line came in between (two steps at
  // once, a step's notices); in a pipe (CI, a test) both lines stay.
  let openLine = null;
  const print = (line) => {
    if (openLine !== null) out.write('\n');
    openLine = null;
    out.write(`${line}\n`);
  };
  const pending = (line) => {
    if (!out.isTTY) return print(line);
    if (openLine !== null) out.write('\n');
    out.write(line);
    openLine = line;
  };
  const settled = (line, pendingLine) => {
    if (openLine === pendingLine && out.isTTY) {
      out.write(`\r\x1b[2K${line}\n`);
      openLine = null;
    } else print(line);
  };
  /** Per app: settles once its output is all in its log file. */
  const flushed = new Map();
  let nameWidth = 0;

  return {
    logDir,

    /**
     * Runs one set-up command to completion; its output goes to setup.log (and the terminal with json). Steps may run
     * side by side (await each). `notices`: the command's stderr lines are shown too, indented (what it found, its
     * progress): for a step that can take a while.
     */
    async step(title, cmd, args, { cwd, notices = false }) {
      const since = Date.now();
      const json = format === 'json';
      if (json) print(`\n▶ ${title}`);
      else pending(`… ${title}`);
      const log = json ? null : createWriteStream(setupLog, { flags: 'a' });
      log?.write(`\n▶ ${title}: ${cmd} ${args.join(' ')}\n`);
      const child = spawn(cmd, args, { cwd, env: { ...env, NX_TUI: 'false' }, stdio: json ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
      if (log) {
        child.stdout.pipe(log, { end: false });
        createInterface({ input: child.stderr }).on('line', (line) => {
          log.write(`${line}\n`);
          if (notices && line.trim()) print(`  ${line}`);
        });
      }
      const [status, error] = await new Promise((resolve) => {
        child.once('error', (e) => resolve([null, e]));
        child.once('close', (code, signal) => resolve([code ?? signal, null]));
      });
      await new Promise((resolve) => (log ? log.end(resolve) : resolve()));
      if (status === 0) {
        if (!json) settled(`✔ ${title} (${seconds(since)})`, `… ${title}`);
        return;
      }
      if (openLine !== null) out.write('\n');
      openLine = null;
      err.write(`✖ ${title} failed (exit ${status ?? error?.message})\n`);
      if (!json) err.write(`${tail(setupLog, 20)}\n  (the whole output: ${shown(SETUP_LOG)})\n`);
      process.exit(typeof status === 'number' ? status : 1);
    },

    /** Says where the logs go, once, before the apps start. */
    appsStarting(apps) {
      nameWidth = Math.max(...apps.map((app) => app.length));
      if (format === 'json') return;
      print(`… starting ${apps.join(', ')} (JSON logs: ${shown('<app>.log')}; LOG_FORMAT=json shows them here)`);
    },

    /** Sends an app's stdout and stderr to its log file, and to the terminal as format decides. */
    attach(app, child) {
      const file = createWriteStream(join(logDir, `${app}.log`));
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          file.write(`${line}\n`);
          if (format === 'json') print(line);
          else {
            const entry = parseLogLine(line);
            if (entry && SHOWN_LEVELS.has(entry.level)) print(`  ${app} ${readable(line)}`);
          }
        });
      }
      flushed.set(app, new Promise((resolve) => child.on('close', () => file.end(resolve))));
    },

    /** An app left unexpectedly: say so, with the end of its log (the reason is usually there). */
    exited(app, reason, { expected }) {
      if (expected) return print(`  ${app} stopped (${reason})`);
      err.write(`✖ ${app} exited (${reason}); the end of ${shown(`${app}.log`)}:\n`);
      void flushed.get(app)?.then(() => err.write(`${tail(join(logDir, `${app}.log`), 15, readable)}\n`));
    },

    ready(app, url) {
      print(`✔ ${app.padEnd(nameWidth)} ready on ${url} (${seconds(started)} since start)`);
    },
  };
}

/** A JSON log line as an object, or undefined for anything else (a stack trace a crashing process prints). */
export function parseLogLine(line) {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** A JSON log line as a person reads it (time, level, message, error); any other line as it is. */
export function readable(line) {
  const entry = parseLogLine(line);
  if (!entry) return line;
  const error = entry.err?.message ?? entry.error;
  return `${String(entry.time ?? '').slice(11, 19)} ${entry.level} ${entry.msg ?? ''}${error ? ` (${error})` : ''}`;
}

function tail(path, lines, render = (line) => line) {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).map((line) => `  ${render(line)}`).join('\n');
  } catch {
    return '  (no output)';
  }
}
