// write-if-changed.mjs - how the page's build tools write into web/: only
// when the bytes change, and atomically (a temporary file beside the target,
// then a rename). Test files run in parallel and each calls assemble() while
// the others' pages are being served from web/: a reader must see the old
// file or the new one, never a missing or half-written one.
import fs from 'node:fs';
import path from 'node:path';

/** Writes `data` (string or bytes) to `file` unless it already holds exactly that. Returns true if it wrote. */
export function writeIfChanged(file, data) {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  try {
    const st = fs.statSync(file);
    if (st.size === bytes.length && fs.readFileSync(file).equals(bytes)) return false;
  } catch { /* missing: write it */ }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
  return true;
}

/** Copies src to dst the same way. */
export function copyIfChanged(src, dst) {
  return writeIfChanged(dst, fs.readFileSync(src));
}
