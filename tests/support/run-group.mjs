// run-group.mjs - run a node script in its own process group; past
// `timeoutMs` the whole group (the script and the Chromium it started) is
// killed. spawnSync's timeout kills only the script, and a browser left
// holding its pipes kept spawnSync waiting for ever.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Resolves { status, stdout, stderr } (stderr says when it timed out). */
export function runGroup(args, timeoutMs, { cwd = ROOT } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, timeoutMs);
    child.on('exit', (status) => {
      clearTimeout(timer);
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* the group is gone */ }
      resolve({ status, stdout, stderr: timedOut ? `timed out after ${timeoutMs} ms\n${stderr}` : stderr });
    });
  });
}
