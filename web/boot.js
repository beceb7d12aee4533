// boot.js - the page's first script: index.html runs it (async) as soon as
// its few modules are here, ahead of app.js and the cards it imports, to
// start the catalogue, the engine worker and its download of the model
// (controllers/prestart.js). app.js's widget goes on from what it began.
// In dist/ it is the first part of the page's one bundle (web/tools/dist.mjs).
import { prestart } from './controllers/prestart.js';

// web/ is this module's directory (in the bundle, the bundle's: the same).
// The single-file build carries everything inline (its modules are blob:
// URLs, no base for a URL): nothing to begin there.
if (!globalThis.ALIGNSCOPE_INLINE) prestart({ base: new URL('./', import.meta.url) });
