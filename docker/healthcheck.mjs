// The image's HEALTHCHECK. The dashboard (`start`) is healthy when /api/health answers 2xx, which
// it does once its database answers. The worker, `migrate` and `cli` serve no HTTP: for them the
// running process is the health, so this answers healthy when no dashboard runs in the container.
import { readdirSync, readFileSync } from 'node:fs';

const commandLine = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};
const dashboard = readdirSync('/proc').some((entry) => /^\d+$/.test(entry) && commandLine(entry).includes('server.js'));
if (!dashboard) process.exit(0);
fetch(`http://127.0.0.1:${process.env.PORT || '3000'}/api/health`, { signal: AbortSignal.timeout(4000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
