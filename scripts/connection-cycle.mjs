// What one connection costs a server: connect, `hello` (with the token of
// the worker's first `welcome` after its first cycle), `welcome`, close;
// CONC workers at once for SECONDS, after a 2 s warm-up. Prints the
// server's CPU per cycle, user and kernel, from /proc/PID/stat. Speaks
// only the part of oxo's protocol that the shared harness's floor relay
// also speaks, so the two can be compared. A benchmark, run by hand:
//
//   cd ../shared/bench/boardgameio     # for its `ws` package
//   node ../../../main/scripts/connection-cycle.mjs ws://127.0.0.1:PORT/ws 5 8 SERVER_PID
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const WebSocket = createRequire(path.join(process.cwd(), 'package.json'))('ws');
const [url, seconds, conc, pid] = process.argv.slice(2);
if (!url || !(+seconds > 0) || !(+conc > 0) || !pid) {
  console.error('usage: node connection-cycle.mjs WS_URL SECONDS CONCURRENCY SERVER_PID');
  process.exit(2);
}
const ticks = 100; // USER_HZ on Linux
const cpu = () => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return [+f[11], +f[12]];
};
let cycles = 0;
let errors = 0;
let stop = false;

async function worker() {
  let token = null;
  while (!stop) {
    await new Promise((done) => {
      const ws = new WebSocket(url);
      ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', version: 1, id: 1, token, name: 'cycle' })));
      ws.on('message', (data) => {
        const m = JSON.parse(data);
        if (m.type === 'welcome') {
          token = token || m.token;
          cycles++;
        } else errors++;
        ws.close();
      });
      ws.on('close', done);
      ws.on('error', () => {
        errors++;
        done();
      });
    });
  }
}

for (let i = 0; i < +conc; i++) worker();
setTimeout(() => {
  const c0 = cpu();
  const n0 = cycles;
  setTimeout(() => {
    const c1 = cpu();
    const n = cycles - n0;
    stop = true;
    const user = ((c1[0] - c0[0]) / ticks) * 1e6 / n;
    const kernel = ((c1[1] - c0[1]) / ticks) * 1e6 / n;
    console.log(
      `${(n / +seconds).toFixed(0)} cycles/s; server µs per cycle: user ${user.toFixed(1)}, kernel ${kernel.toFixed(1)}, total ${(user + kernel).toFixed(1)}; errors ${errors}`,
    );
    setTimeout(() => process.exit(0), 500);
  }, +seconds * 1000);
}, 2000);
