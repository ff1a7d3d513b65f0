// Spawns helix as the desktop app does (a real child process, stdio piped)
// and signals it DELAY ms later, for every delay and signal given; prints one
// JSON line per run: {"delay_ms","signal","code","signal_killed","stderr","stdout"}.
// usage: node signal_at.js HELIX 'SIGTERM,SIGINT' '1,5,20' -- ARGS...
'use strict';
const { spawn } = require('child_process');

const [helix, sigs, delays, sep, ...args] = process.argv.slice(2);
if (sep !== '--') {
  console.error('usage: node signal_at.js HELIX SIGNALS DELAYS -- ARGS...');
  process.exit(2);
}

function run(sig, delay) {
  return new Promise((resolve) => {
    const child = spawn(helix, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    setTimeout(() => child.kill(sig), delay);
    child.on('close', (code, signal) => {
      resolve({ delay_ms: delay, signal: sig, code: code === null ? -1 : code, signal_killed: signal || '', stderr: err, stdout: out });
    });
  });
}

(async () => {
  for (const d of delays.split(',').map(Number)) {
    for (const s of sigs.split(',')) {
      process.stdout.write(JSON.stringify(await run(s, d)) + '\n');
    }
  }
})();
