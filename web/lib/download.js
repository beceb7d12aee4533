// download.js - a file's bytes over fetch(), with progress, never hanging,
// and its failures as DownloadErrors. No UI strings: it runs in the engine
// worker too (worker.js downloads the model itself), which carries none.
//
// A DownloadError says what went wrong as a key of the i18n tables
// ('download.http', …) and its raw values ({ status, path, loaded, total,
// s, why }); its message is made when it is read, in the UI language, by
// the words client.js gives it (DownloadError.words). Where there are none
// (the worker) the message is the key: the worker sends kind, key and
// values to the page, which makes the same error again there (client.js).

/** An error while downloading: `kind` is 'http', 'network', 'stalled', 'truncated' or 'checksum'. */
export class DownloadError extends Error {
  /** (key, values) → the message in the UI language; set by client.js on the page's thread. */
  static words = null;

  constructor(kind, key, values = {}, { loaded = 0, total = 0, status = 0 } = {}) {
    super();
    this.name = 'DownloadError';
    this.kind = kind;
    this.key = key;
    this.values = values;
    this.loaded = loaded;
    this.total = total;
    this.status = status;
  }

  get message() { return DownloadError.words ? DownloadError.words(this.key, this.values) : this.key; }
}

/** Why a download stopped at `signal`'s request: its reason, or an AbortError where it gave none. */
export const abortReason = (signal) => signal.reason ?? new DOMException('The download was aborted.', 'AbortError');

/**
 * Fetch with progress: onProgress(loaded, total|0). Resolves with a Uint8Array.
 * Never hangs: the download is aborted when no byte arrives for `stallMs`.
 * A body shorter than its Content-Length (a connection closed early) is an
 * error here, before the bytes reach the engine. Errors are DownloadErrors.
 * `cache` is fetch()'s cache mode ('reload' skips the HTTP cache).
 * An outer `signal` (the reader picked another model) stops it at once and
 * rejects with the signal's reason, an AbortError: it is not a failure of
 * the network and is never reported as one.
 */
export async function fetchWithProgress(url, onProgress, { signal, stallMs = 20_000, cache = 'default' } = {}) {
  // Aborted before it starts: nothing is requested ('abort' has fired already, so the listener below would never run).
  if (signal?.aborted) throw abortReason(signal);
  const ctrl = new AbortController();
  const onOuterAbort = () => ctrl.abort(signal.reason);
  signal?.addEventListener('abort', onOuterAbort, { once: true });
  let stalled = false;
  let timer = null;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { stalled = true; ctrl.abort(); }, stallMs);
  };
  let loaded = 0;
  let total = 0;
  const s = Math.round(stallMs / 1000);
  const stallError = () => new DownloadError('stalled', total ? 'download.stalledAfter' : 'download.stalled', { s, loaded, total }, { loaded, total });
  try {
    arm();
    let res;
    try {
      res = await fetch(url, { signal: ctrl.signal, cache });
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      if (stalled) throw stallError();
      throw new DownloadError('network', 'download.network', { why: err.message });
    }
    if (!res.ok) {
      throw new DownloadError('http', 'download.http', { status: `${res.status} ${res.statusText || 'error'}`, path: new URL(url, globalThis.location?.href).pathname }, { status: res.status });
    }
    // With a content encoding (gzip), Content-Length counts compressed bytes.
    const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
    total = encoded ? 0 : Number(res.headers.get('content-length')) || 0;
    onProgress?.(0, total);
    // With a known length the chunks go straight into the result as they come
    // (no second pass to join them); a body longer than it said is kept whole.
    let out = total ? new Uint8Array(total) : null;
    const chunks = [];
    const keep = (chunk) => {
      if (out && loaded + chunk.length <= out.length) out.set(chunk, loaded);
      else {
        if (out) { chunks.push(out.subarray(0, loaded)); out = null; }
        chunks.push(chunk);
      }
      loaded += chunk.length;
    };
    if (!res.body || !res.body.getReader) {
      keep(new Uint8Array(await res.arrayBuffer()));
    } else {
      const reader = res.body.getReader();
      for (;;) {
        let step;
        try {
          step = await reader.read();
        } catch (err) {
          if (signal?.aborted) throw abortReason(signal);
          if (stalled) throw stallError();
          throw new DownloadError('network', total ? 'download.brokeOf' : 'download.broke', { loaded, total, why: err.message }, { loaded, total });
        }
        if (step.done) break;
        arm();
        keep(step.value);
        onProgress?.(loaded, total);
      }
    }
    if (total && loaded !== total) throw new DownloadError('truncated', 'download.truncated', { loaded, total }, { loaded, total });
    if (out) return out;
    const joined = new Uint8Array(loaded);
    let off = 0;
    for (const c of chunks) { joined.set(c, off); off += c.length; }
    return joined;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onOuterAbort);
  }
}
