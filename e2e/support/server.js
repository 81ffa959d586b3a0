// Starts a real `oxo serve` on an ephemeral port with a fresh database and
// reads its URL from the "listening on http://..." line it prints.
// The binary is built by scripts/test (`cargo build --release -p oxo`) in
// $CARGO_TARGET_DIR or target/; OXO_BIN points elsewhere.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const E2E_DIR = resolve(here, '..');
export const ARTIFACTS = join(E2E_DIR, 'artifacts');
// Where cargo put it: CARGO_TARGET_DIR (relative to the repository root),
// else target/.
const TARGET_DIR = resolve(E2E_DIR, '..', process.env.CARGO_TARGET_DIR ?? 'target');
const BIN = process.env.OXO_BIN ?? join(TARGET_DIR, 'release/oxo');
const START_TIMEOUT_MS = 20_000;
// OXO_E2E_PORT: the first port of a range to listen on (worker n takes the
// n-th port after it), for a machine where ports are shared out; without
// it, each server takes a free port the system picks.
const PORT_BASE = process.env.OXO_E2E_PORT ? Number(process.env.OXO_E2E_PORT) : null;

/**
 * Starts a server; `index` picks its port within OXO_E2E_PORT's range;
 * `args` are more flags of `oxo serve` (e.g. a short reconnect grace).
 * @param {string} label
 * @param {number} index
 * @param {string[]} args
 */
export async function startServer(label = 'server', index = 0, args = []) {
  if (PORT_BASE !== null && !(Number.isInteger(PORT_BASE) && PORT_BASE > 0 && PORT_BASE + index < 65536)) {
    throw new Error(`OXO_E2E_PORT=${process.env.OXO_E2E_PORT} is not a port: give a whole number from 1 to 65535`);
  }
  const port = PORT_BASE === null ? 0 : PORT_BASE + index;
  if (!existsSync(BIN)) {
    throw new Error(`${BIN} is missing: build it first with \`cargo build --release -p oxo\``);
  }
  const dir = mkdtempSync(join(tmpdir(), 'oxo-e2e-'));
  const db = join(dir, 'oxo.db');
  const child = spawn(BIN, ['serve', '--addr', `127.0.0.1:${port}`, '--db', db, '--new-players-per-minute', '600', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const log = [];
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });

  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`oxo serve printed no URL within ${START_TIMEOUT_MS} ms:\n${log.join('')}`));
    }, START_TIMEOUT_MS);
    const onData = (stream) => (chunk) => {
      const text = chunk.toString();
      log.push(`[${stream}] ${text}`);
      const m = text.match(/listening on (https?:\/\/[^\s]+)/i);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1].replace(/\/$/, ''));
      }
    };
    child.stdout.on('data', onData('out'));
    child.stderr.on('data', onData('err'));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`oxo serve exited (${code ?? signal}) before listening:\n${log.join('')}`));
    });
  });

  async function stop() {
    let metrics = '';
    try {
      metrics = await (await fetch(`${url}/metrics`)).text();
    } catch {
      // Only a debugging aid.
    }
    if (!exited) {
      child.kill('SIGTERM');
      await new Promise((done) => {
        const force = setTimeout(() => {
          child.kill('SIGKILL');
          done();
        }, 7000);
        child.on('exit', () => {
          clearTimeout(force);
          done();
        });
        if (exited) {
          clearTimeout(force);
          done();
        }
      });
    }
    try {
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, `${label}.log`), log.join(''));
      if (metrics) writeFileSync(join(ARTIFACTS, `${label}.metrics.txt`), metrics);
    } catch {
      // The log is a convenience only.
    }
    rmSync(dir, { recursive: true, force: true });
  }

  return { url, db, log, stop };
}
